def sorts_ascending(observed, ctx):
    xs = ctx.inputs
    if not isinstance(observed, list) or sorted(observed) != list(range(len(xs))):
        return "not a permutation of the indices"
    values = [xs[i] for i in observed]
    return None if values == sorted(values) else "does not sort ascending"
