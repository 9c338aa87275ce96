// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of x86_assign_counters() (assign.c): previous counters
 * kept, fixed counters preferred, events moved to make room, busy
 * counters avoided, the impossible refused; every set of four events
 * over four counters checked against a brute-force search; the longest
 * chains of moves on a full 64-counter PMU; and paired events.
 */
#include <kunit/test.h>
#include <linux/bitops.h>

#include "assign.h"

#define F(i)	BIT_ULL(X86_ASSIGN_FIXED_BASE + (i))

/* The assignment is one: distinct counters, each in its event's mask. */
static void check_valid(struct kunit *test, const struct x86_assign_req *req,
			int n, u64 busy, const int *assign)
{
	u64 used = 0;
	int e;

	for (e = 0; e < n; e++) {
		KUNIT_ASSERT_GE(test, assign[e], 0);
		KUNIT_ASSERT_LT(test, assign[e], X86_ASSIGN_COUNTERS);
		KUNIT_EXPECT_TRUE(test, req[e].mask & BIT_ULL(assign[e]));
		KUNIT_EXPECT_FALSE(test, busy & BIT_ULL(assign[e]));
		KUNIT_EXPECT_FALSE(test, used & BIT_ULL(assign[e]));
		used |= BIT_ULL(assign[e]);
	}
}

static void keeps_previous_counters(struct kunit *test)
{
	struct x86_assign_req req[4] = {};
	int assign[4], e;

	for (e = 0; e < 4; e++) {
		req[e].mask = 0xf | F(0);
		req[e].prev = 3 - e;
	}
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 4, 0, assign), 0);
	for (e = 0; e < 4; e++)
		KUNIT_EXPECT_EQ(test, assign[e], 3 - e);
}

static void prefers_fixed_counters(struct kunit *test)
{
	struct x86_assign_req req[2] = {
		{ .mask = 0xf, .prev = -1 },
		{ .mask = 0xf | F(1), .prev = -1 },
	};
	int assign[2];

	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 2, 0, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 0);
	KUNIT_EXPECT_EQ(test, assign[1], X86_ASSIGN_FIXED_BASE + 1);
	/* Busy fixed counter: a general one then. */
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 2, F(1), assign), 0);
	KUNIT_EXPECT_EQ(test, assign[1], 1);
}

static void moves_events_to_make_room(struct kunit *test)
{
	/* Each later event can only use what an earlier one took first. */
	struct x86_assign_req req[4] = {
		{ .mask = 0x3, .prev = -1 },
		{ .mask = 0x6, .prev = -1 },
		{ .mask = 0xc, .prev = -1 },
		{ .mask = 0x1, .prev = -1 },
	};
	int assign[4];

	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 4, 0, assign), 0);
	check_valid(test, req, 4, 0, assign);
	KUNIT_EXPECT_EQ(test, assign[3], 0);
	/* A previous counter is given up when that is the only way. */
	req[0].prev = 0;
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 4, 0, assign), 0);
	check_valid(test, req, 4, 0, assign);
}

/* Arrays for @n events, freed with the test. */
static void alloc_events(struct kunit *test, int n, struct x86_assign_req **req,
			 int **assign)
{
	*req = kunit_kcalloc(test, n, sizeof(**req), GFP_KERNEL);
	*assign = kunit_kcalloc(test, n, sizeof(**assign), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *req);
	KUNIT_ASSERT_NOT_NULL(test, *assign);
}

static void refuses_the_impossible(struct kunit *test)
{
	struct x86_assign_req *req;
	int *assign, e;

	alloc_events(test, X86_ASSIGN_MAX_EVENTS + 1, &req, &assign);
	for (e = 0; e < 5; e++) {
		req[e].mask = 0xf;
		req[e].prev = -1;
	}
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 5, 0, assign), -EINVAL);
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 4, 0, assign), 0);
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 4, 0x8, assign), -EINVAL);
	/* Three events on two counters between them. */
	req[0].mask = 0x1;
	req[1].mask = 0x3;
	req[2].mask = 0x2;
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 3, 0, assign), -EINVAL);
	/* An empty mask, a prev outside the mask. */
	req[0].mask = 0;
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 1, 0, assign), -EINVAL);
	req[0].mask = 0x2;
	req[0].prev = 0;
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 1, 0, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 1);
	for (e = 0; e <= X86_ASSIGN_MAX_EVENTS; e++) {
		req[e].mask = ~0ULL;
		req[e].prev = -1;
	}
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, X86_ASSIGN_MAX_EVENTS + 1, 0, assign),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, -1, 0, assign), -EINVAL);
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 0, 0, assign), 0);
}

/* Whether events @e.. of @mask can take distinct counters outside @used. */
static bool brute(const u64 *mask, int n, int e, u64 used)
{
	int c;

	if (e == n)
		return true;
	for (c = 0; c < 4; c++)
		if ((mask[e] & BIT_ULL(c)) && !(used & BIT_ULL(c)) &&
		    brute(mask, n, e + 1, used | BIT_ULL(c)))
			return true;
	return false;
}

/*
 * Every set of one to four events with masks over four counters, with
 * and without a previous counter and a busy one: an assignment exactly
 * when one exists, and a valid one.
 */
static void agrees_with_brute_force(struct kunit *test)
{
	struct x86_assign_req req[4] = {};
	u64 mask[4];
	int assign[4], n, e, ret;
	unsigned int code, combos;
	u64 busy;

	for (n = 1; n <= 4; n++) {
		combos = 1;
		for (e = 0; e < n; e++)
			combos *= 16;
		for (code = 0; code < combos; code++) {
			for (e = 0; e < n; e++) {
				mask[e] = (code >> (4 * e)) & 0xf;
				req[e].mask = mask[e];
				/* Some previous counters, some of them stale. */
				req[e].prev = (code + e) % 5 - 1;
			}
			busy = code % 7 == 0 ? BIT_ULL(code % 4) : 0;
			ret = x86_assign_counters(req, n, busy, assign);
			KUNIT_ASSERT_EQ(test, ret == 0, brute(mask, n, 0, busy));
			if (!ret)
				check_valid(test, req, n, busy, assign);
		}
	}
}

/*
 * The longest chains: 64 events on 64 counters, event i able to use
 * counters i and i + 1 only (the last one counter 63 only), placed from
 * the first.  Each new event finds its counters taken and the whole
 * chain before it has to move.
 */
static void long_chains_of_moves(struct kunit *test)
{
	struct x86_assign_req *req;
	int *assign, e;

	alloc_events(test, X86_ASSIGN_MAX_EVENTS, &req, &assign);
	for (e = 0; e < X86_ASSIGN_MAX_EVENTS; e++) {
		req[e].mask = BIT_ULL(e);
		if (e + 1 < X86_ASSIGN_COUNTERS)
			req[e].mask |= BIT_ULL(e + 1);
		req[e].prev = -1;
	}
	/* Event 0 can take counter 1 first; the rest must push it back. */
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, X86_ASSIGN_MAX_EVENTS, 0, assign), 0);
	check_valid(test, req, X86_ASSIGN_MAX_EVENTS, 0, assign);
	for (e = 0; e < X86_ASSIGN_MAX_EVENTS; e++)
		KUNIT_EXPECT_EQ(test, assign[e], e);
	/* With counter 0 busy there is one counter too few. */
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, X86_ASSIGN_MAX_EVENTS, 1, assign),
			-EINVAL);
	/* Backwards: each event takes i + 1, then the last has none left. */
	for (e = 0; e < X86_ASSIGN_MAX_EVENTS; e++)
		req[e].prev = e + 1 < X86_ASSIGN_COUNTERS ? e + 1 : -1;
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, X86_ASSIGN_MAX_EVENTS, 0, assign), 0);
	check_valid(test, req, X86_ASSIGN_MAX_EVENTS, 0, assign);
}

/*
 * Paired events (AMD's large-increment events, six counters): each
 * takes an even counter and the one after it, before any other event;
 * a pair keeps its counters when they are free, and three pairs fill
 * the PMU.
 */
static void pairs_take_two_counters(struct kunit *test)
{
	struct x86_assign_req req[4] = {
		{ .mask = 0x3f, .prev = 0 },
		{ .mask = 0x15, .prev = -1, .pair = true },
		{ .mask = 0x15, .prev = 4, .pair = true },
		{ .mask = 0x3f, .prev = 5 },
	};
	int assign[4];

	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 4, 0, assign), 0);
	/* The pair on 4-5 stays; the other takes 0-1; counter 5 is lost. */
	KUNIT_EXPECT_EQ(test, assign[2], 4);
	KUNIT_EXPECT_EQ(test, assign[1], 0);
	KUNIT_EXPECT_TRUE(test, assign[0] == 2 || assign[0] == 3);
	KUNIT_EXPECT_TRUE(test, assign[3] == 2 || assign[3] == 3);
	KUNIT_EXPECT_NE(test, assign[0], assign[3]);

	/* Three pairs fill six counters: nothing more fits. */
	req[0].pair = true;
	req[0].mask = 0x15;
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 4, 0, assign), -EINVAL);
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 3, 0, assign), 0);
	KUNIT_EXPECT_EQ(test, BIT(assign[0]) | BIT(assign[1]) | BIT(assign[2]), 0x15);
	/* A busy odd counter takes its pair away. */
	KUNIT_EXPECT_EQ(test, x86_assign_counters(req, 3, BIT_ULL(3), assign), -EINVAL);
	KUNIT_ASSERT_EQ(test, x86_assign_counters(req, 2, BIT_ULL(3), assign), 0);
	KUNIT_EXPECT_EQ(test, BIT(assign[0]) | BIT(assign[1]), 0x11);
}

static struct kunit_case assign_cases[] = {
	KUNIT_CASE(keeps_previous_counters),
	KUNIT_CASE(prefers_fixed_counters),
	KUNIT_CASE(moves_events_to_make_room),
	KUNIT_CASE(refuses_the_impossible),
	KUNIT_CASE(agrees_with_brute_force),
	KUNIT_CASE(long_chains_of_moves),
	KUNIT_CASE(pairs_take_two_counters),
	{}
};

static struct kunit_suite assign_suite = {
	.name = "x86_pmu_assign",
	.test_cases = assign_cases,
};

kunit_test_suite(assign_suite);
