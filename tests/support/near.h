/*
 * assert_near(): CMocka 1.1 only compares floats (24-bit mantissa), too coarse for
 * statistics, so the stats and measure tests compare doubles with this.
 */
#ifndef CULPRIT_TESTS_NEAR_H
#define CULPRIT_TESTS_NEAR_H

#include <math.h>

#define assert_near(a, b, eps)                                                                     \
    do {                                                                                           \
        double near_a_ = (a), near_b_ = (b), near_eps_ = (eps);                                    \
        if (!(fabs(near_a_ - near_b_) <= near_eps_))                                               \
            fail_msg("%s = %.12g, expected %.12g +- %g", #a, near_a_, near_b_, near_eps_);         \
    } while (0)

#endif
