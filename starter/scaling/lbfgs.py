"""L-BFGS on many independent problems in lockstep (one per start), vectorized with numpy.

Each row of x is its own problem: its own history, line search and stopping test; rows only
share the array operations. The stopping tests are scipy L-BFGS-B's defaults: stop a row when
max |gradient| <= gtol, or when (f_old - f_new) / max(|f_old|, |f_new|, 1) <= ftol. Both are
absolute for an objective below 1, which is why its scale (sum vs mean) matters.
"""

from __future__ import annotations

import numpy as np


def lbfgs(fg, x0, memory=10, ftol=2.220446049250313e-09, gtol=1e-5, max_iter=15000):
    """Minimize each row of x0 (S, P) independently. fg(x) maps (k, P) -> ((k,), (k, P)):
    values and gradients of the k rows. Returns (x (S, P), f (S,))."""
    fg = in_blocks(fg)
    x = np.array(x0, dtype=float)
    f, g = fg(x)
    S, P = x.shape
    s_hist = np.zeros((memory, S, P))  # steps x_{k+1} - x_k, newest last
    y_hist = np.zeros((memory, S, P))  # gradient changes g_{k+1} - g_k
    rho = np.zeros((memory, S))  # 1 / (s . y); 0 marks an empty or skipped pair
    active = np.max(np.abs(g), axis=1) > gtol
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        d = -two_loop(g[idx], s_hist[:, idx], y_hist[:, idx], rho[:, idx])
        slope = np.sum(d * g[idx], axis=1)
        uphill = slope >= 0  # lost curvature information: restart along -g
        d[uphill], slope[uphill] = -g[idx][uphill], -np.sum(g[idx][uphill] ** 2, axis=1)
        first = rho[:, idx].max(axis=0) == 0  # no curvature pairs yet: a cautious first step
        t0 = np.where(first, np.minimum(1, 1 / np.linalg.norm(d, axis=1)), 1.0)
        x_new, f_new, g_new = backtrack(fg, x[idx], f[idx], d, slope, t0)
        s, y = x_new - x[idx], g_new - g[idx]
        sy = np.sum(s * y, axis=1)
        s_hist[:, idx] = np.roll(s_hist[:, idx], -1, axis=0)
        y_hist[:, idx] = np.roll(y_hist[:, idx], -1, axis=0)
        rho[:, idx] = np.roll(rho[:, idx], -1, axis=0)
        keep = sy > 1e-10 * np.sum(y * y, axis=1)  # skip pairs without positive curvature
        s_hist[-1, idx], y_hist[-1, idx] = s, y
        rho[-1, idx] = np.where(keep, 1 / np.where(keep, sy, 1), 0)
        done = ((f[idx] - f_new <= ftol * np.maximum(np.maximum(np.abs(f[idx]), np.abs(f_new)), 1))
                | (np.max(np.abs(g_new), axis=1) <= gtol))
        x[idx], f[idx], g[idx] = x_new, f_new, g_new
        active[idx[done]] = False
    return x, f


def two_loop(g, s_hist, y_hist, rho):
    """The L-BFGS two-loop recursion, per row: approximately H^-1 g from the stored pairs."""
    q = g.copy()
    a = np.zeros(rho.shape)
    for i in reversed(range(len(rho))):
        a[i] = rho[i] * np.sum(s_hist[i] * q, axis=1)
        q -= a[i][:, None] * y_hist[i]
    sy = np.where(rho > 0, 1 / np.where(rho > 0, rho, 1), 0)
    yy = np.sum(y_hist * y_hist, axis=2)
    newest = np.where(rho > 0, np.arange(len(rho))[:, None], -1).max(axis=0)  # per row
    rows = np.arange(g.shape[0])
    gamma = np.where(newest >= 0, sy[newest, rows] / np.where(newest >= 0, yy[newest, rows], 1),
                     1.0)  # initial Hessian scale s.y / y.y of the newest pair
    r = gamma[:, None] * q
    for i in range(len(rho)):
        b = rho[i] * np.sum(y_hist[i] * r, axis=1)
        r += (a[i] - b)[:, None] * s_hist[i]
    return r


def backtrack(fg, x, f, d, slope, t0, c1=1e-4, max_halvings=60):
    """Armijo backtracking from step t0 (per row). Returns (x_new, f_new, g_new); a row that finds
    no decrease stays put (and then stops: its f does not change)."""
    t = np.array(t0, dtype=float)
    x_new, f_new, g_new = x.copy(), f.copy(), np.zeros_like(x)
    todo = np.arange(len(x))
    for _ in range(max_halvings):
        trial = x[todo] + t[todo, None] * d[todo]
        with np.errstate(all="ignore"):
            f_t, g_t = fg(trial)
        ok = np.isfinite(f_t) & (f_t <= f[todo] + c1 * t[todo] * slope[todo])
        x_new[todo[ok]], f_new[todo[ok]], g_new[todo[ok]] = trial[ok], f_t[ok], g_t[ok]
        todo = todo[~ok]
        if todo.size == 0:
            break
        t[todo] /= 2
    if todo.size:  # no acceptable step: keep x, and report its own gradient
        g_new[todo] = fg(x[todo])[1]
    return x_new, f_new, g_new


def in_blocks(fg, rows=16):
    """fg evaluated on blocks of rows: small temporaries stay in cache and off malloc's mmap path
    (whose page faults cost more than the arithmetic), about 4x faster than one big block."""
    def blocked(x):
        if len(x) <= rows:
            return fg(x)
        parts = [fg(x[i:i + rows]) for i in range(0, len(x), rows)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return blocked
