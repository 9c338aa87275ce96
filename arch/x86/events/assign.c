// SPDX-License-Identifier: GPL-2.0-only
/*
 * Assigning events to counters under constraints.
 *
 * An x86 PMU has general counters (index 0 up) and fixed counters (index
 * 32 up); each event can count on some of them only: a fixed-function
 * event on its fixed counter or on a general one, some events on a few
 * general counters, and so on.  Scheduling a set of events (a context's
 * groups, one after another) means finding a distinct counter for each
 * event within its mask: a bipartite matching.
 *
 * x86_assign_counters() finds one whenever one exists, whatever the
 * order of the events and however their masks overlap: each event is
 * placed by a breadth-first search for an augmenting path, which moves
 * already placed events to other counters of theirs when that frees one
 * for it.  Before searching, every event whose previous counter is still
 * free keeps it, so that a set that fitted before is assigned as before
 * and nothing is reprogrammed; among free counters, an event takes a
 * fixed one before a general one, leaving general counters to events
 * that can use nothing else.
 *
 * A paired event (AMD family 17h and later: an even counter and the odd
 * one after it) is placed before all others, on its previous pair when
 * that is free, else on the first free pair of its mask; the matching
 * then runs on the counters left.  Placing pairs first is what a
 * matching over pairs would do where every other event may count on any
 * counter, which is the case on the PMUs that have pairs.
 *
 * Cost: n events over C counters take O(n * (n + C)) steps at worst;
 * with the previous counters still free, O(n).  Everything lives on the
 * caller's stack or in the caller's arrays; no locks, no allocation:
 * callable from any context, NMI included.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>

#include "assign.h"

#define FIXED_COUNTERS	GENMASK_ULL(X86_ASSIGN_COUNTERS - 1, X86_ASSIGN_FIXED_BASE)

/* The state of one assignment: who holds each counter. */
struct assign_state {
	const struct x86_assign_req *req;
	int *assign;
	u64 busy;				/* counters no event may take */
	s8 owner[X86_ASSIGN_COUNTERS];		/* event on counter, or -1 */
};

/*
 * Reach counter @c from event @x in a search: true when the counter is
 * free (the search ends there), else its holder joins the queue.
 */
static bool reach(struct assign_state *s, int c, int x, s8 *from,
		  s8 *queue, int *tail)
{
	from[c] = x;
	if (s->owner[c] < 0)
		return true;
	queue[(*tail)++] = s->owner[c];
	return false;
}

/*
 * Place event @e: search, breadth first, for a free counter reachable
 * from @e through counters held by events that could move to another
 * counter of theirs; then move each along the path.  False when none.
 */
static bool place(struct assign_state *s, int e)
{
	s8 queue[X86_ASSIGN_MAX_EVENTS];
	s8 from[X86_ASSIGN_COUNTERS];	/* the event that reached counter c */
	int head = 0, tail = 0, x, c = -1, k;
	u64 seen = 0;
	bool found = false;

	queue[tail++] = e;
	while (!found && head < tail) {
		u64 mask, part[2];

		x = queue[head++];
		mask = s->req[x].mask & ~s->busy & ~seen;
		seen |= mask;
		/* Fixed counters first, then general ones. */
		part[0] = mask & FIXED_COUNTERS;
		part[1] = mask & ~FIXED_COUNTERS;
		for (k = 0; !found && k < 2; k++) {
			while (!found && part[k]) {
				c = __ffs64(part[k]);
				part[k] &= part[k] - 1;
				found = reach(s, c, x, from, queue, &tail);
			}
		}
	}
	if (!found)
		return false;

	/* Walk back: each event on the path takes the counter it reached. */
	for (;;) {
		int prev_c;

		x = from[c];
		prev_c = s->assign[x];
		s->owner[c] = x;
		s->assign[x] = c;
		if (x == e)
			return true;
		c = prev_c;
	}
}

/* Whether counters @c and @c + 1 are both free. */
static bool pair_free(struct assign_state *s, int c)
{
	u64 both = BIT_ULL(c) | BIT_ULL(c + 1);

	return c >= 0 && c + 1 < X86_ASSIGN_FIXED_BASE && !(c & 1) &&
	       !(s->busy & both);
}

/*
 * Place the paired event @e on its previous pair, or with @anywhere on
 * the first free pair of its mask.
 */
static bool place_pair(struct assign_state *s, int e, bool anywhere)
{
	u64 mask = s->req[e].mask & GENMASK_ULL(X86_ASSIGN_FIXED_BASE - 1, 0);
	int c = s->req[e].prev;

	if (!(c >= 0 && c < X86_ASSIGN_COUNTERS && (mask & BIT_ULL(c)) &&
	      pair_free(s, c))) {
		if (!anywhere)
			return false;
		for (c = -1; mask; mask &= mask - 1) {
			if (pair_free(s, __ffs64(mask))) {
				c = __ffs64(mask);
				break;
			}
		}
		if (c < 0)
			return false;
	}
	/* Both counters are the event's: no other event may take them. */
	s->busy |= BIT_ULL(c) | BIT_ULL(c + 1);
	s->assign[e] = c;
	return true;
}

/**
 * x86_assign_counters - a distinct counter for each event
 * @req: what each event can count on, and where it counted before
 * @n: the number of events, at most %X86_ASSIGN_MAX_EVENTS
 * @busy: counters taken already (by other users), which no event gets
 * @assign: on success, the counter of each event; scratch otherwise
 *
 * Finds an assignment whenever one exists (for paired events: where
 * the others may count anywhere).  Events keep their previous counter
 * when it is in their mask and not busy or kept by another.
 *
 * Return: 0, or -EINVAL when the events cannot all count at once.
 */
int x86_assign_counters(const struct x86_assign_req *req, int n, u64 busy,
			int *assign)
{
	struct assign_state s = { .req = req, .assign = assign, .busy = busy };
	int e, c;

	if (n < 0 || n > X86_ASSIGN_MAX_EVENTS)
		return -EINVAL;
	memset(s.owner, -1, sizeof(s.owner));

	/* Pairs first: where they were, then wherever two are free. */
	for (e = 0; e < n; e++)
		assign[e] = -1;
	for (e = 0; e < n; e++)
		if (req[e].pair)
			place_pair(&s, e, false);
	for (e = 0; e < n; e++)
		if (req[e].pair && assign[e] < 0 && !place_pair(&s, e, true))
			return -EINVAL;

	/* What was where, stays where it was. */
	for (e = 0; e < n; e++) {
		c = req[e].prev;
		if (req[e].pair || c < 0 || c >= X86_ASSIGN_COUNTERS)
			continue;
		if (!(req[e].mask & BIT_ULL(c)) || (s.busy & BIT_ULL(c)) ||
		    s.owner[c] >= 0)
			continue;
		s.owner[c] = e;
		assign[e] = c;
	}
	for (e = 0; e < n; e++)
		if (assign[e] < 0 && !place(&s, e))
			return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(x86_assign_counters);
