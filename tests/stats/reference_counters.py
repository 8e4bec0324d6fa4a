#!/usr/bin/python3
"""Reference values for the correlation, least-squares and clustering tests in
tests/stats/test_stats_cluster.c (Shang et al. 2015 building blocks).

Not part of the build: run by hand with Debian 12's python3-scipy 1.10.1 /
python3-numpy 1.24.2 (`/usr/bin/python3 tests/stats/reference_counters.py`). The
arrays are the literal arrays of the C test; every number pasted there is printed
here by the line named in its comment.
"""
import numpy as np
import scipy
import scipy.stats as st
from scipy.cluster.hierarchy import linkage, fcluster
from scipy.spatial.distance import squareform

print("scipy", scipy.__version__, "numpy", np.__version__)

X = [3.1, 4.7, 2.2, 5.9, 4.1, 3.3, 6.8, 5.0]
Y = [10.2, 13.9, 8.1, 16.5, 12.0, 11.4, 19.7, 14.2]
Z = [7.5, 2.1, 6.6, 3.3, 9.0, 1.2, 4.4, 5.8]
print("pearsonr(X, Y)", repr(st.pearsonr(X, Y)[0]))
print("pearsonr(X, Z)", repr(st.pearsonr(X, Z)[0]))

# OLS of Y on X and Z with an intercept.
A = np.column_stack([np.ones(len(X)), X, Z])
coef, res, rank, sv = np.linalg.lstsq(A, Y, rcond=None)
pred = A @ coef
r2 = 1 - np.sum((np.array(Y) - pred) ** 2) / np.sum((np.array(Y) - np.mean(Y)) ** 2)
print("ols Y~X+Z coef", [repr(c) for c in coef], "r2", repr(r2))
print("ols predict at X=4, Z=5", repr(coef[0] + 4 * coef[1] + 5 * coef[2]))

# Average linkage of 6 items.
D = np.array([
    [0.00, 0.10, 0.80, 0.85, 0.90, 0.40],
    [0.10, 0.00, 0.75, 0.95, 0.70, 0.45],
    [0.80, 0.75, 0.00, 0.20, 0.60, 0.65],
    [0.85, 0.95, 0.20, 0.00, 0.55, 0.70],
    [0.90, 0.70, 0.60, 0.55, 0.00, 0.50],
    [0.40, 0.45, 0.65, 0.70, 0.50, 0.00]])
L = linkage(squareform(D), method="average")
print("linkage average:")
for row in L:
    print("  ", int(row[0]), int(row[1]), repr(row[2]), int(row[3]))
for k in (2, 3, 4):
    print("fcluster maxclust", k, list(fcluster(L, k, criterion="maxclust")))

# Calinski-Harabasz of points in the plane, centroid form.
P = np.array([[0, 0], [1, 0], [0, 1], [5, 5], [6, 5], [5, 7], [10, 0]], dtype=float)
lab = np.array([0, 0, 0, 1, 1, 1, 2])
def ch(P, lab):
    n, k = len(P), len(set(lab))
    c = P.mean(axis=0)
    W = sum(((P[lab == j] - P[lab == j].mean(axis=0)) ** 2).sum() for j in set(lab))
    B = sum((lab == j).sum() * ((P[lab == j].mean(axis=0) - c) ** 2).sum() for j in set(lab))
    return (B / (k - 1)) / (W / (n - k))
print("CH centroid form", repr(ch(P, lab)))
for k in range(2, 7):
    LP = linkage(P, method="average")
    labs = fcluster(LP, k, criterion="maxclust")
    print("points: average linkage k", k, list(labs), "CH", repr(ch(P, labs)))

# MSER (White 1997): d in 0..n/2 minimizing sum((x[d:] - mean)^2) / (n - d)^2.
def mser(x):
    n = len(x)
    stats = [(np.sum((np.array(x[d:]) - np.mean(x[d:])) ** 2) / (n - d) ** 2, d)
             for d in range(0, n // 2 + 1)]
    return min(stats)[1]
print("mser(x)", mser([50, 40, 30, 20, 15] + [10, 11, 9, 10, 12, 8, 10, 11, 9, 10, 10, 11, 9,
                                            10, 12, 8, 10, 11, 9, 10]))
print("mser(flat)", mser([10, 11, 9, 10, 12, 8, 10, 11, 9, 10]))
print("mser(trend)", mser(list(range(1, 11))))
