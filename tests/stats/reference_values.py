#!/usr/bin/python3
"""Reference values for tests/stats/test_stats_compare.c.

Not part of the build and not a project dependency: run by hand with Debian 12's
python3-scipy 1.10.1 / python3-numpy 1.24.2 (`apt-get install python3-scipy`,
`/usr/bin/python3 tests/stats/reference_values.py`). Every number pasted into the C
test comes from one line printed here; the comment next to it names the call.

The data sets are the literal arrays of the C test. They were drawn once with
numpy.random.default_rng(20240611): A ~ N(100, 5) x 12 and B ~ N(106, 8) x 15
rounded to 3 decimals, LA ~ lognormal(log 50, 0.1) x 60 and LB ~ lognormal(log 52,
0.1) x 70 rounded to 4, G3 ~ N(103, 6) x 10 rounded to 3 -- no ties in A+B nor in
LA+LB.
"""
import itertools
import math

import numpy as np
import scipy
import scipy.stats as st

A = [98.944, 97.411, 100.748, 91.051, 101.422, 98.392, 96.37, 100.493, 90.243, 99.208, 96.344,
     102.048]
B = [109.54, 98.577, 98.535, 94.24, 99.698, 108.555, 112.858, 107.83, 106.278, 99.06, 107.566,
     99.474, 107.917, 104.379, 112.848]
LA = [51.0227, 57.3347, 48.0, 53.9263, 51.1386, 59.2448, 41.0922, 54.5681, 45.135, 45.8401,
      49.9083, 42.99, 44.3701, 47.5351, 48.4133, 41.3327, 45.8172, 49.2757, 49.3447, 46.7957,
      49.9796, 47.4979, 56.2256, 46.1137, 50.2964, 47.611, 54.4607, 45.3708, 54.5809, 44.3669,
      43.6116, 47.3315, 50.4628, 42.945, 47.5415, 49.9802, 49.8225, 54.5752, 54.0792, 51.6922,
      54.7823, 54.9265, 44.7507, 62.2121, 49.756, 47.0603, 53.0926, 47.6158, 53.2362, 44.3398,
      53.7616, 44.0637, 51.9144, 48.9452, 47.5544, 50.7713, 47.2046, 46.2855, 52.014, 60.6515]
LB = [47.0621, 58.3676, 57.9395, 46.4899, 52.9987, 54.7977, 47.4729, 57.926, 56.7715, 61.6262,
      54.0672, 57.1596, 62.3308, 53.0663, 49.4628, 44.977, 53.5111, 45.8109, 58.0331, 52.7709,
      56.3932, 52.853, 58.855, 49.6803, 52.261, 59.8149, 45.8517, 53.0108, 57.3269, 46.7536,
      48.4858, 45.8902, 58.5171, 51.0245, 50.3868, 45.15, 46.7524, 57.0482, 51.0241, 49.9566,
      56.2853, 47.4965, 61.1043, 50.1201, 49.3995, 50.6393, 52.1945, 55.7769, 48.4901, 47.8869,
      52.1988, 53.7927, 56.7678, 49.5791, 57.2796, 46.958, 59.7292, 46.6203, 51.5534, 53.0255,
      57.5446, 60.1752, 52.2566, 62.8536, 47.9084, 53.729, 50.7826, 55.0635, 47.2786, 46.5935]
G3 = [110.699, 109.384, 106.367, 98.787, 106.552, 105.683, 110.401, 104.397, 93.313, 101.702]
TA = [1, 2, 2, 3, 3, 3, 4, 5]  # with ties
TB = [2, 3, 4, 4, 5, 5, 6, 7, 7]
HA = list(range(1, 21))  # huge difference: every b above every a
HB = list(range(1001, 1021))
# Grids for the large KS cases, the same expressions as the C test.
GA = [(i + 0.5) / 1001 for i in range(1001)]
GB = [((j + 0.5) / 1000) ** 1.2 for j in range(1000)]
GA5 = [(i + 0.5) / 500 for i in range(500)]
GB5 = [((j + 0.5) / 500) ** 1.2 for j in range(500)]

print("scipy", scipy.__version__, "numpy", np.__version__)


def welch(a, b, conf, z=False):
    """diff b - a, se, Welch-Satterthwaite df, CI, p: by hand from numpy moments."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    diff = b.mean() - a.mean()
    q = st.norm.ppf(0.5 + conf / 2) if z else st.t.ppf(0.5 + conf / 2, df)
    p = 2 * st.norm.sf(abs(diff) / se) if z else None
    return diff, se, df, diff - q * se, diff + q * se, p


print("--- Welch")
d, se, df, lo, hi, _ = welch(A, B, 0.99)
print("A,B t: diff %.12g se %.12g df %.12g ci99 [%.12g, %.12g]" % (d, se, df, lo, hi))
print("A,B ttest_ind(B, A, equal_var=False):", st.ttest_ind(B, A, equal_var=False))
print("A,B p from t.sf with the df above:", 2 * st.t.sf(abs(d) / se, df))
d, se, df, lo, hi, p = welch(LA, LB, 0.99, z=True)
print("LA,LB z: diff %.12g se %.12g ci99 [%.12g, %.12g] p 2*norm.sf %.12g" % (d, se, lo, hi, p))
print("LA,LB ttest_ind(LB, LA, equal_var=False) (t, for contrast):",
      st.ttest_ind(LB, LA, equal_var=False))
# The switch at n = 30, from summary statistics: mean 10 sd 1 vs mean 10.5 sd 1.2.
for n in (29, 30):
    r = st.ttest_ind_from_stats(10.5, 1.2, n, 10.0, 1.0, n, equal_var=False)
    se = math.sqrt(1.2 ** 2 / n + 1.0 / n)
    print("switch n=%d: ttest_ind_from_stats p %.12g; 2*norm.sf(0.5/se) %.12g; se %.12g; "
          "t.ppf(0.975, df) %.12g norm.ppf(0.975) %.12g"
          % (n, r.pvalue, 2 * st.norm.sf(0.5 / se), se,
             st.t.ppf(0.975, (se ** 2) ** 2 / ((1.44 / n) ** 2 / (n - 1) + (1.0 / n) ** 2 / (n - 1))),
             st.norm.ppf(0.975)))
print("HA,HB ttest_ind(HB, HA, equal_var=False):", st.ttest_ind(HB, HA, equal_var=False))

print("--- ANOVA")
print("f_oneway(A, B, G3):", st.f_oneway(A, B, G3))
print("f_oneway(A, B):", st.f_oneway(A, B))
print("f_oneway(HA, HB):", st.f_oneway(HA, HB))

print("--- Mann-Whitney (U of the first argument)")
print("mannwhitneyu(B, A, method='exact'):", st.mannwhitneyu(B, A, method="exact"))
print("mannwhitneyu(B, A, method='asymptotic', use_continuity=True):",
      st.mannwhitneyu(B, A, method="asymptotic", use_continuity=True))
print("mannwhitneyu(LB, LA, method='asymptotic', use_continuity=True):",
      st.mannwhitneyu(LB, LA, method="asymptotic", use_continuity=True))
print("mannwhitneyu(LB, LA, method='exact'):", st.mannwhitneyu(LB, LA, method="exact"))
print("mannwhitneyu(TB, TA, method='asymptotic', use_continuity=True):",
      st.mannwhitneyu(TB, TA, method="asymptotic", use_continuity=True))
print("mannwhitneyu([3.5], [1, 2, 5, 6], method='exact'):",
      st.mannwhitneyu([3.5], [1, 2, 5, 6], method="exact"))
print("mannwhitneyu(HB, HA, method='exact'):", st.mannwhitneyu(HB, HA, method="exact"),
      " 2/C(40,20) =", 2 / math.comb(40, 20))
print("mannwhitneyu(LB+100, LA, method='asymptotic', use_continuity=True):",
      st.mannwhitneyu([x + 100 for x in LB], LA, method="asymptotic", use_continuity=True))

print("--- Kolmogorov-Smirnov")


def stephens(d, m, n):
    """NR 14.3: Q_KS((sqrt(Ne) + 0.12 + 0.11/sqrt(Ne)) D) with scipy's kstwobign.sf."""
    en = math.sqrt(m * n / (m + n))
    return st.kstwobign.sf((en + 0.12 + 0.11 / en) * d)


r = st.ks_2samp(A, B, method="exact")
print("ks_2samp(A, B, method='exact'):", r)
print("Stephens-corrected kstwobign.sf for A,B:", stephens(r.statistic, 12, 15))
print("ks_2samp(LA, LB, method='exact'):", st.ks_2samp(LA, LB, method="exact"))
print("ks_2samp([3.5], [1, 2, 5, 6], method='exact'):",
      st.ks_2samp([3.5], [1, 2, 5, 6], method="exact"))
print("ks_2samp(HA, HB, method='exact'):", st.ks_2samp(HA, HB, method="exact"))
r = st.ks_2samp(GA, GB, method="exact")
print("ks_2samp(GA, GB, method='exact'):", r)
print("Stephens-corrected kstwobign.sf for GA,GB:", stephens(r.statistic, 1001, 1000))
print("ks_2samp(GA, GB, method='asymp') (scipy's kstwo(round(Ne)), for contrast):",
      st.ks_2samp(GA, GB, method="asymp"))
print("ks_2samp(GA5, GB5, method='exact'):", st.ks_2samp(GA5, GB5, method="exact"))


def ks_d(x, y):
    """D over the pooled values, ties handled by evaluating the ECDFs at each value."""
    pts = sorted(set(x) | set(y))
    return max(abs(sum(v <= t for v in x) / len(x) - sum(v <= t for v in y) / len(y))
               for t in pts)


# Ties: the exact permutation p-value by enumerating all C(17, 8) = 24310 splits of
# the pooled sample (independent of any lattice-path algorithm).
pooled = TA + TB
d_obs = ks_d(TA, TB)
hits = total = 0
for idx in itertools.combinations(range(len(pooled)), len(TA)):
    s = set(idx)
    x = [pooled[i] for i in idx]
    y = [pooled[i] for i in range(len(pooled)) if i not in s]
    total += 1
    hits += ks_d(x, y) >= d_obs - 1e-12
print("TA,TB with ties: D %.12g, enumerated permutation p %d/%d = %.12g"
      % (d_obs, hits, total, hits / total))
print("ks_2samp(TA, TB, method='exact') (ignores ties, for contrast):",
      st.ks_2samp(TA, TB, method="exact"))

print("--- Benjamini-Hochberg and Holm (R's p.adjust algorithm, in numpy)")
P = np.array([0.01, 0.04, 0.03, 0.005, 0.5, 0.2, 0.04, 0.0001, 0.9, 0.03])
n = len(P)
o = np.argsort(-P, kind="stable")
ro = np.argsort(o, kind="stable")
bh = np.minimum(1, np.minimum.accumulate(n / np.arange(n, 0, -1) * P[o]))[ro]
o = np.argsort(P, kind="stable")
ro = np.argsort(o, kind="stable")
holm = np.minimum(1, np.maximum.accumulate((n - np.arange(n)) * P[o]))[ro]
print("p    ", ", ".join(repr(float(x)) for x in P))
print("BH   ", ", ".join("%.12g" % x for x in bh))
print("Holm ", ", ".join("%.12g" % x for x in holm))
