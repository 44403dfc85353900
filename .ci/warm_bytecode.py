"""Compile the bytecode the sandboxed children need, once, at setup: the children run
`python -I -B` (they never write .pyc files), and setup installs without compiling, so without
this every child would recompile what it imports (`import torch` alone: about 6.4 s of CPU
instead of 2.4 s). Importing the libraries (a fixed list, then what every assignment's tests,
common.py and reference import: `autograder.backends.preload.preload_list`) and building one tiny
model of each kind the tests build makes Python write exactly the .pyc files a graded run
reads, in a few seconds - instead of compiling all of site-packages. It writes them whatever
the caller's PYTHONDONTWRITEBYTECODE says. Then it builds each assignment's view of the
installed packages (autograder/sandbox/view.py), which pairs its modules with that bytecode.
Best effort: a missing library is skipped (the runner
images run it too, without the engine: docker/Dockerfile). Setup runs its two
parts side by side (`--part torch`, `--part rest`: one core each), then `--part views`; with
no argument it runs all three in turn."""

import importlib
import sys

MODULES = ["numpy", "scipy.stats", "scipy.optimize", "scipy.integrate", "torch",
           "torch.distributed", "torch.optim", "torch._dynamo", "torch.nn.functional",
           "torch.utils.data", "pytest", "pytest_timeout", "hypothesis", "regex", "transformers",
           "transformers.models.gpt2.modeling_gpt2", "transformers.models.llama.modeling_llama",
           "transformers.models.clip.modeling_clip"]


# `--instructor` (make setup-instructor): what the instructor's own processes import - every
# `make test` worker, the CLI runs and bulk of the tests, nbgrader's commands and kernels, dask's
# scheduler and workers. Where the caller sets PYTHONDONTWRITEBYTECODE (as this course machine
# does), each of those processes otherwise compiled them from source again (nbgrader.apps:
# 1.8 CPU s instead of 0.8; distributed 0.8 instead of 0.4).
INSTRUCTOR_MODULES = [
    "autograder.cli", "autograder.commands", "autograder.classroom.bulk",
    "autograder.classroom.dask_executor", "autograder.classroom.html_report",
    "autograder.integrations.gradescope", "autograder.integrations.nbgrader_course",
    "autograder.integrations.nbgrader_lab", "autograder.integrations.nbgrader_kernel",
    "autograder.integrations.nbgrader_preprocessor", "autograder.authoring.goldens",
    "autograder.authoring.course_selftest", "autograder.watch", "datasketch", "tiktoken",
    "tokenizers", "watchfiles", "rich.live", "docker", "dask", "dask.bag", "distributed",
    "nbformat", "nbconvert", "nbclient", "jupyter_client", "ipykernel.kernelapp",
    "jupyter_server.serverapp", "sqlalchemy.orm", "nbgrader.api", "nbgrader.apps",
    "nbgrader.preprocessors", "nbgrader.converters", "xdist", "pytest_timeout", "hypothesis"]


TORCH = ("torch", "transformers")  # the `torch` part's top-level packages (the long one)


def _import(name: str) -> None:
    """Import `module` or `module:attr` (an attribute a module makes lazily), best effort."""
    module, _, attr = name.partition(":")
    try:
        loaded = importlib.import_module(module)
        if attr:
            getattr(loaded, attr)
    except Exception:  # noqa: BLE001 - best effort (a library missing here)
        pass


def _in_part(name: str, part: str) -> bool:
    return (name.split(".")[0].split(":")[0] in TORCH) == (part == "torch")


def warm(part: str) -> None:
    """The bytecode of one part: `torch` (torch and transformers, what they build lazily) or
    `rest` (everything else the children import); they run side by side (one core each) and
    share no module, so neither compiles what the other writes."""
    names = list(MODULES)
    try:  # what each assignment's tests, common.py and reference import (the zygote's list)
        from autograder.assignments import discover
        from autograder.backends.preload import preload_list
        for assignment in discover():
            names += preload_list(assignment)
    except Exception:  # noqa: BLE001 - best effort
        pass
    for name in dict.fromkeys(names):
        if _in_part(name, part):
            _import(name)
    if part != "torch":
        return
    try:  # what a first optimizer step pulls in lazily (torch._compile -> torch._dynamo)
        import torch
        torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1).step()
    except Exception:  # noqa: BLE001 - best effort
        pass
    try:  # what building and running a small model pulls in lazily
        import torch
        import transformers
        transformers.logging.set_verbosity_error()
        for config, model in ((transformers.GPT2Config(n_layer=1, n_head=2, n_embd=8),
                               transformers.GPT2LMHeadModel),
                              (transformers.LlamaConfig(num_hidden_layers=1, hidden_size=8,
                                                        intermediate_size=16,
                                                        num_attention_heads=2,
                                                        num_key_value_heads=2),
                               transformers.LlamaForCausalLM)):
            model(config).eval()(torch.zeros(1, 3, dtype=torch.long))
    except Exception:  # noqa: BLE001 - best effort
        pass


def views() -> None:
    """The children's view of each assignment's dotted rules, after the bytecode it pairs."""
    try:
        from autograder.assignments import discover
        from autograder.sandbox.view import child_view
        for assignment in discover():
            child_view(assignment.forbidden)
    except Exception:  # noqa: BLE001 - best effort: the first graded run builds it otherwise
        pass


def main() -> int:
    # PYTHONDONTWRITEBYTECODE (set in many CI and container environments) would make this
    # script write nothing; a pycache prefix would put the files where -I children never look.
    sys.dont_write_bytecode = False
    sys.pycache_prefix = None
    args = sys.argv[1:]
    if args == ["--instructor"]:
        for name in INSTRUCTOR_MODULES:
            _import(name)
    elif args in (["--part", "torch"], ["--part", "rest"]):
        warm(args[1])
    elif args == ["--part", "views"]:
        views()
    elif not args:  # everything, one part after the other (the runner images' build)
        warm("rest")
        warm("torch")
        views()
    else:
        print("usage: warm_bytecode.py [--instructor | --part torch|rest|views]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
