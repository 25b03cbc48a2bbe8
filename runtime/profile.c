/*
 * The profiler: which form a best-effort kernel runs in, per (kernel, grid,
 * block, dynamic shared memory), measured on the application's own launches.
 *
 * No kernel runs twice.  A launch the profiler wants measured runs in the
 * candidate form with a pair of events around it on its own stream; the
 * elapsed time is read later, when the events are done, at some later
 * best-effort launch of the same context.  One candidate is measured at a
 * time per pair; launches in between take the default form (persistent,
 * else sliced), which is preemptible too.
 *
 * The candidates, in order (each measured until it has two clean samples):
 *   1. the default preemptible form: persistent with a wave of workers, or
 *      sliced one wave per slice when there is no persistent form;
 *   2. when that runs within twice the turnaround bound, or in one round
 *      (it stops no sooner than it ends), the original: a kernel shorter
 *      than the bound needs no preemption (the latency tenant waits at
 *      most the bound behind it), and it pays no form's overhead, which
 *      can put a short kernel's form past the bound;
 *   3. when neither is within the bound, a sliced form cut into enough slices that one slice takes
 *      about 60% of the bound, refined twice if a slice still takes longer
 *      and the last refinement cut the turnaround by a quarter at least.
 *      Never more slices than waves of the device: a slice is not shorter
 *      than one block, so slices of less than a wave only add launches and
 *      leave SMs idle (on the H100, be_burn's 24.6 ms kernel, sized for
 *      slices of 19 us, about 1,300 of them, ran at 2% of its speed while
 *      it was measured).
 * Turnaround, the time the latency tenant can wait behind the kernel: a
 * slice's time for the sliced form (total / slices), one round of the
 * workers for the persistent form (total / ceil(blocks / workers)), the
 * whole kernel for the original.  A persistent form that gives stopped
 * blocks up (COLOC_RESTART=1) leaves at a barrier, well before its block's
 * end: its turnaround is what its real stops took, measured by preempt.c's
 * watcher from the stop word to the launch's leaving (of the last eight, the
 * largest but one).  Until it has been stopped three times it counts as
 * within the bound; the third stop makes the choice again, and so does a
 * later one that moves it across the bound.  Not the first stop: a choice
 * that leaves the persistent form sees no more of its stops, so one slow
 * stop would decide for good (twenty-fifth session, H100: the long GPT
 * trainer's largest GEMM took 399.7 us at its first stop, where the session
 * before measured 45 us; its 279 us slices were chosen, saved, and kept, and
 * the latency tenant beside it read +15.7% and +42.7% at p99, with 2-3 ms
 * service times it never had with the persistent form).
 * The choice is the fastest candidate within the bound
 * (COLOC_TURNAROUND_US, default 31.6 us); when none is, the one with the
 * least product of time and turnaround among those at most twice as slow
 * as the fastest: a form k times slower must cut the turnaround more than k
 * times.  The cap keeps a bound that cannot be met from costing the
 * best-effort tenant most of its throughput (a GPU run found a 4 ms kernel
 * cut into hundreds of slices, 200 times slower, for a turnaround no better
 * than its blocks').  The product, not the least turnaround within 25% of
 * the fastest as before: on an H200 a CuPy GEMM's persistent form, 1.75
 * times slower than two slices but stopped in 39 us against the slices'
 * 282 us, lost to them, and the latency tenant beside it ran +39% at p99
 * (benchmarks/results/2026-11-28-h200/session16).
 *
 * Under COLOC_SHARE only persistent kernels run beside a busy latency
 * tenant (the others wait at the gate), so the choice is among the
 * persistent candidates; when the original was measured within the bound
 * and faster, it is launched instead whenever no latency tenant is busy at
 * the launch (a kernel shorter than the bound needs no narrowing, and the
 * GPT trainer's short kernels ran 30-60% longer persistent).
 *
 * A sample is clean when, between its launch and the moment it is read,
 * this tenant was neither held back for the latency tenant nor preempted,
 * and no other thread launched between its two events;
 * after six tries without one, the fastest disturbed sample counts (a
 * kernel that always runs beside the latency tenant is measured as it runs).
 *
 * Measurements persist in the cache: $COLOC_CACHE_DIR/profile/DEVICE/KEY, one
 * file per module (KEY: the module's cache key, so a changed module or pass
 * starts afresh), one line per measured candidate, appended when a pair is
 * decided:
 *   KERNEL GX GY GZ BX BY BZ SHMEM FORM PARAM UNITS TIME_NS TURN_NS SAMPLES [STOP_NS STOPS]
 * FORM is original, slice or ptb; PARAM what was asked (slices, workers; 0:
 * the device's wave), UNITS what ran; a persistent form that was stopped
 * adds how long its stops took (STOP_NS, see coloc_profile_stopped) and how
 * many were counted.  A later line for the same candidate replaces an
 * earlier one.  A process that finds the measurements it needs
 * there launches the chosen form at once; a changed bound decides again from
 * them, measuring only what is still missing.
 *
 * Kernels of modules without PTX (compiled code only: stock PyTorch's,
 * cuBLAS's) have no form but the original, and are timed all the same, on
 * two launches each: the depth of best-effort work in flight counts an item
 * by its measured time (scheduler.h), where untimed it counts a whole bound,
 * and colocctl's coverage covers such a tenant.  (Beside the graphed
 * ResNet-50 this alone did not change stock PyTorch training's throughput:
 * three quarters of its kernel time is in kernels beyond the bound, which
 * count a bound either way; COLOC_GATED_DEPTH did.)  Those measurements stay
 * in memory: such a module has no cache key to file them under.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "scheduler.h"

#define CANDIDATES 6 /* default, original, three slicings, one forced form */
#define SAMPLES 2
#define TRIES 6
#define BUCKETS 256
#define DEVICES 16
#define RECENT_STOPS 8
#define STOPS_COUNTED 3  /* stops before a persistent form's own turnaround counts */

struct measurement {
	int form;          /* enum coloc_variant_form, or FORM_ORIGINAL */
	unsigned param;    /* asked: slices or workers; 0: the device's wave */
	unsigned units;    /* what ran: slices or workers */
	uint64_t time_ns;  /* the fastest counted sample */
	uint64_t turn_ns;
	unsigned samples;  /* counted samples */
	unsigned tries;    /* all samples */
	uint64_t dirty_ns; /* the fastest disturbed sample, for when nothing is clean */
	/* Persistent forms: how long its real stops took (coloc_profile_stopped). */
	uint64_t stop_ns;  /* of the recent ones, the largest but one (the only one: one) */
	unsigned stops;    /* stops counted, ever */
	uint64_t recent[RECENT_STOPS];
	unsigned nrecent;
};

struct entry {
	struct entry *next;
	char key[65];
	char *kernel;
	int device;
	struct coloc_dim3 grid, block;
	unsigned shmem;
	struct measurement m[CANDIDATES];
	unsigned n;
	bool probing;       /* a probe of it is in flight */
	bool decided;
	bool saved;         /* its measurements are on disk as they are */
	struct coloc_run_form choice;
};

/* A timed launch. */
struct coloc_probe {
	struct coloc_probe *next;
	struct entry *e;
	unsigned cand;
	CUcontext ctx;
	CUevent start, end;
	uint64_t disturbed; /* the tenant's gated launches + preemptions at the start */
	uint64_t launches;  /* the process's best-effort launches at the start */
	bool failed;
};

/* A module's profile file, read once per device. */
struct loaded {
	struct loaded *next;
	char key[65];
	int device;
};

static struct {
	pthread_mutex_t lock;
	struct entry *table[BUCKETS];
	struct coloc_probe *pending;
	struct loaded *loaded;
	uint64_t launches;             /* best-effort launches of the process so far */
	char device_dir[DEVICES][160]; /* "" until asked */
} prof = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *const form_names[] = { [VARIANT_SLICE] = "slice", [VARIANT_PTB] = "ptb" };

static const char *form_name(int form)
{
	return form == FORM_ORIGINAL ? "original" : form_names[form];
}

static uint64_t blocks_of(struct coloc_dim3 g)
{
	return (uint64_t)g.x * g.y * g.z;
}

static uint64_t disturbances(void)
{
	struct coloc_tenant *self = NULL;

	if (!coloc_sched_segment(&self) || !self)
		return 0;
	return __atomic_load_n(&self->counters[TC_GATED_LAUNCHES], __ATOMIC_RELAXED) +
	       __atomic_load_n(&self->counters[TC_PREEMPTIONS], __ATOMIC_RELAXED);
}

/* ---- the table */

static unsigned hash(const char *key, const char *kernel, int device, struct coloc_dim3 g,
		     struct coloc_dim3 b, unsigned shmem)
{
	uint32_t h = 2166136261u;
	uint32_t v[8] = { (uint32_t)device, g.x, g.y, g.z, b.x, b.y, b.z, shmem };

	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	for (const char *s = kernel; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	for (unsigned i = 0; i < 8; i++)
		h = (h ^ v[i]) * 16777619u;
	return h % BUCKETS;
}

static bool dim_eq(struct coloc_dim3 a, struct coloc_dim3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* The pair's entry; `create`: made when missing (NULL only when out of memory). */
static struct entry *lookup(const char *key, const char *kernel, int device, struct coloc_dim3 g,
			    struct coloc_dim3 b, unsigned shmem, bool create)
{
	unsigned h = hash(key, kernel, device, g, b, shmem);
	struct entry *e;

	for (e = prof.table[h]; e; e = e->next)
		if (e->device == device && e->shmem == shmem && dim_eq(e->grid, g) &&
		    dim_eq(e->block, b) && !strcmp(e->key, key) && !strcmp(e->kernel, kernel))
			return e;
	if (!create || !(e = calloc(1, sizeof(*e))) || !(e->kernel = strdup(kernel))) {
		free(e);
		return NULL;
	}
	memcpy(e->key, key, sizeof(e->key));
	e->device = device;
	e->grid = g;
	e->block = b;
	e->shmem = shmem;
	e->next = prof.table[h];
	prof.table[h] = e;
	return e;
}

static struct measurement *find(struct entry *e, int form, unsigned param)
{
	for (unsigned i = 0; i < e->n; i++)
		if (e->m[i].form == form && e->m[i].param == param)
			return &e->m[i];
	return NULL;
}

/* The candidate's measurement, added when missing; NULL when the entry is full. */
static struct measurement *add(struct entry *e, int form, unsigned param)
{
	struct measurement *m = find(e, form, param);

	if (m || e->n == CANDIDATES)
		return m;
	m = &e->m[e->n++];
	memset(m, 0, sizeof(*m));
	m->form = form;
	m->param = param;
	return m;
}

/*
 * The candidate's turnaround.  A persistent form that gives stopped blocks
 * up leaves at its next barrier, not at its block's end: its turnaround is
 * what its stops took, and until it has been stopped STOPS_COUNTED times it
 * counts as within the bound (coloc_profile_stopped decides again).
 */
static uint64_t turn_of(const struct measurement *m, unsigned forms)
{
	if (m->form == VARIANT_PTB && (forms & COLOC_FORMS_RESTART))
		return m->stops >= STOPS_COUNTED ? m->stop_ns : 0;
	return m->turn_ns;
}

/* Enough samples, or as many as it will get. */
static bool measured(const struct measurement *m)
{
	return m && (m->samples >= SAMPLES || (m->samples && m->tries >= TRIES + SAMPLES));
}

/* ---- the profile on disk */

/* The device's directory under the cache ("" when unknown): its name and architecture. */
static const char *device_dir(int device, unsigned sm)
{
	char name[128] = "", *d;

	if (device < 0 || device >= DEVICES)
		return "";
	d = prof.device_dir[device];
	if (d[0])
		return d;
	if (REAL(cuDeviceGetName)(name, (int)sizeof(name) - 1, device) != CUDA_SUCCESS)
		return "";
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			*c = '_';
	snprintf(d, sizeof(prof.device_dir[0]), "%s-sm_%u", name, sm);
	return d;
}

static int profile_path(char *path, size_t size, const char *key, int device, unsigned sm)
{
	const char *dir = device_dir(device, sm);

	if (!coloc_cfg.cache_dir[0] || !dir[0])
		return -1;
	return snprintf(path, size, "%s/profile/%s/%s", coloc_cfg.cache_dir, dir, key) <
		       (int)size ? 0 : -1;
}

static int form_from(const char *s)
{
	if (!strcmp(s, "original"))
		return FORM_ORIGINAL;
	if (!strcmp(s, "slice"))
		return VARIANT_SLICE;
	if (!strcmp(s, "ptb"))
		return VARIANT_PTB;
	return -2;
}

/* Reads a module's profile for a device once; lines that do not parse are skipped. */
static void load(const char *key, int device, unsigned sm)
{
	char path[4096], line[512], kernel[256], form[16];
	struct loaded *l;
	unsigned bad = 0, lines = 0;
	FILE *f;

	for (l = prof.loaded; l; l = l->next)
		if (l->device == device && !strcmp(l->key, key))
			return;
	if (!(l = calloc(1, sizeof(*l))))
		return;
	memcpy(l->key, key, sizeof(l->key));
	l->device = device;
	l->next = prof.loaded;
	prof.loaded = l;
	if (profile_path(path, sizeof(path), key, device, sm) < 0 || !(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		struct coloc_dim3 g, b;
		unsigned shmem, param, units, samples;
		uint64_t time_ns, turn_ns, stop_ns;
		unsigned stops;
		struct measurement *m;
		struct entry *e;
		int fm, n = 0, k = 0;

		lines++;
		if (sscanf(line, "%255s %u %u %u %u %u %u %u %15s %u %u %" SCNu64 " %" SCNu64 " %u%n",
			   kernel, &g.x, &g.y, &g.z, &b.x, &b.y, &b.z, &shmem, form, &param, &units,
			   &time_ns, &turn_ns, &samples, &n) != 14) {
			bad++;
			continue;
		}
		/* Then, for a persistent form that was stopped, STOP_NS STOPS. */
		stop_ns = 0;
		stops = 0;
		if (line[n] == ' ' &&
		    sscanf(line + n, " %" SCNu64 " %u%n", &stop_ns, &stops, &k) == 2 && stops)
			n += k;
		if (line[n] != '\n' || (fm = form_from(form)) < -1 || !samples || !units ||
		    !blocks_of(g) || !blocks_of(b)) {
			bad++;
			continue;
		}
		if (!(e = lookup(key, kernel, device, g, b, shmem, true)) || !(m = add(e, fm, param)))
			continue;
		m->units = units;
		m->time_ns = time_ns;
		m->turn_ns = turn_ns;
		m->samples = samples;
		m->tries = TRIES + SAMPLES;
		m->stop_ns = stop_ns;
		m->stops = stops;
		m->recent[0] = stop_ns;
		m->nrecent = stops ? 1 : 0;
		e->saved = true;
	}
	fclose(f);
	if (bad)
		coloc_log(COLOC_LOG_WARN, "profile %s: %u of %u lines are not measurements; "
			  "ignored", path, bad, lines);
}

/* Appends the entry's measurements to its module's profile, in one write. */
static void save(struct entry *e, unsigned sm)
{
	char path[4096], buf[CANDIDATES * 400];
	size_t len = 0;
	int fd;

	if (profile_path(path, sizeof(path), e->key, e->device, sm) < 0)
		return;
	for (unsigned i = 0; i < e->n; i++) {
		const struct measurement *m = &e->m[i];

		if (!m->samples)
			continue;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s %u %u %u %u %u %u %u %s %u %u %" PRIu64 " %" PRIu64 " %u",
					e->kernel, e->grid.x, e->grid.y, e->grid.z, e->block.x,
					e->block.y, e->block.z, e->shmem, form_name(m->form), m->param,
					m->units, m->time_ns, m->turn_ns, m->samples);
		if (len < sizeof(buf) && m->stops)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %" PRIu64 " %u",
						m->stop_ns, m->stops);
		if (len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "\n");
		if (len >= sizeof(buf))
			return; /* a kernel name too long for the format: not saved */
	}
	*strrchr(path, '/') = '\0';
	if (coloc_mkdirs(path, 0777) < 0) {
		coloc_log(COLOC_LOG_WARN, "cannot write profile in %s: %s", path, strerror(errno));
		return;
	}
	path[strlen(path)] = '/';
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		coloc_log(COLOC_LOG_WARN, "cannot write profile %s: %s", path, strerror(errno));
		return;
	}
	if (write(fd, buf, len) != (ssize_t)len)
		coloc_log(COLOC_LOG_WARN, "cannot write profile %s: %s", path, strerror(errno));
	close(fd);
	e->saved = true;
}

/* ---- choosing */

/* The form launches take without the profiler: persistent, else sliced, else original. */
static struct coloc_run_form static_form(unsigned forms)
{
	struct coloc_run_form f = { .form = FORM_ORIGINAL, .batch = coloc_cfg.ptb_batch };

	if ((forms & (1u << VARIANT_PTB)) && coloc_cfg.form != COLOC_FORM_SLICE) {
		f.form = VARIANT_PTB;
		f.param = coloc_cfg.workers;
	} else if ((forms & (1u << VARIANT_SLICE)) && coloc_cfg.form != COLOC_FORM_PTB) {
		f.form = VARIANT_SLICE;
		f.param = coloc_cfg.slices;
	}
	return f;
}

/* Slices so that one takes about 60% of the bound, for a kernel taking `ns`; at most `most`. */
static unsigned slices_for(uint64_t ns, uint64_t most)
{
	uint64_t per = coloc_cfg.turnaround_ns * 6 / 10, n = (ns + per - 1) / per;

	return (unsigned)(n > most ? most : n > (1u << 30) ? 1u << 30 : n);
}

/*
 * The next candidate to measure, or false when the entry has what it
 * needs.  `forms`: the variants the kernel has.
 */
static bool next_candidate(struct entry *e, unsigned forms, struct coloc_run_form *c)
{
	struct coloc_run_form first = static_form(forms);
	const struct measurement *base = find(e, first.form, 0), *last = NULL, *prev = NULL;
	const struct measurement *orig = find(e, FORM_ORIGINAL, 0);
	uint64_t blocks = blocks_of(e->grid), waves;
	unsigned sliced = 0;

	c->param = 0;
	c->form = first.form;
	if (!measured(base))
		return true;
	if (first.form == FORM_ORIGINAL)
		return false;
	/* An original within the bound is as fast as any form: nothing to look for. */
	if (measured(orig) && orig->turn_ns <= coloc_cfg.turnaround_ns)
		return false;
	/*
	 * Within twice the bound the original is measured too: it is rarely
	 * slower than a form of it, and a form's fixed cost can be most of a
	 * short kernel's (twenty-third session, H100: one-wave kernels of the
	 * GPT trainer took 32-37 us persistent, just over the 31.6 us bound,
	 * against 6-9 us original; with the original measured only within the
	 * bound they ran persistent, and the latency tenant beside them read
	 * +18.1% at p99; the session before, whose persistent forms measured
	 * 24-30 us and whose originals were measured, -9.6%).  Measuring it
	 * costs the latency tenant at most a few non-preemptible launches of
	 * about that length.  So does a default form of one round, however
	 * long (its turnaround is its whole time: it stops no sooner than the
	 * original would end; the trainer's embedding backward, 66.7 us
	 * persistent, 4.6 us original); not one that gives stopped blocks up
	 * at its barriers (turn_of).
	 */
	if (!measured(orig) && (base->time_ns <= 2 * coloc_cfg.turnaround_ns ||
				(turn_of(base, forms) && turn_of(base, forms) >= base->time_ns))) {
		c->form = FORM_ORIGINAL;
		return true;
	}
	if (base->time_ns <= coloc_cfg.turnaround_ns)
		return false;
	/*
	 * One slice per wave is the finest slicing worth having; when that is
	 * the default form already, there is nothing finer to try.
	 */
	if (!(forms & (1u << VARIANT_SLICE)) || first.form != VARIANT_PTB)
		return false;
	waves = (blocks + base->units - 1) / (base->units ? base->units : 1);
	for (unsigned i = 0; i < e->n; i++) {
		if (e->m[i].form != VARIANT_SLICE || !e->m[i].param)
			continue;
		if (!measured(&e->m[i]))
			return c->form = VARIANT_SLICE, c->param = e->m[i].param, true;
		sliced++;
		if (!last || e->m[i].units > last->units) {
			prev = last;
			last = &e->m[i];
		} else if (!prev || e->m[i].units > prev->units) {
			prev = &e->m[i];
		}
	}
	c->form = VARIANT_SLICE;
	if (!last) {
		c->param = slices_for(base->time_ns, waves);
	} else {
		if (last->turn_ns <= coloc_cfg.turnaround_ns || sliced == 3 || last->units >= waves)
			return false;
		/* A second slicing that did not cut the turnaround by a quarter: no third. */
		if (prev && last->turn_ns * 4 > prev->turn_ns * 3)
			return false;
		c->param = slices_for(last->time_ns, waves);
		/* Slices do not shrink in proportion (launch costs, partial waves): at least double. */
		if (c->param < 2 * last->units)
			c->param = 2 * last->units > waves ? (unsigned)waves : 2 * last->units;
	}
	return c->param > 1 && !find(e, VARIANT_SLICE, c->param) && e->n < CANDIDATES;
}

/*
 * Virtual blocks a persistent worker takes at a time, from the measured
 * round (one block per worker): as many as fit in half the bound, at most
 * 16, and no more than a quarter of the rounds, so that batches still
 * spread over the workers.  A block's take (an atomic on one counter shared
 * by every worker, and the stop word's read) costs microseconds when the
 * blocks are that short: on the H100 the GPT trainer's elementwise kernels
 * of millions of 3 us blocks ran 2.3 times longer persistent than sliced.
 */
static unsigned batch_for(const struct entry *e, const struct measurement *m)
{
	uint64_t rounds, b;

	if (!m->turn_ns || !m->units)
		return 1;
	rounds = (blocks_of(e->grid) + m->units - 1) / m->units;
	b = coloc_cfg.turnaround_ns / (2 * m->turn_ns);
	if (b > 16)
		b = 16;
	if (b > rounds / 4)
		b = rounds / 4;
	return b > 1 ? (unsigned)b : 1;
}

static bool usable(const struct measurement *m, unsigned forms)
{
	return m->samples && (m->form == FORM_ORIGINAL || (forms & (1u << m->form)));
}

/*
 * The fastest measured candidate within the bound; else the one with the
 * least time x turnaround among those at most twice as slow as the fastest.
 */
/*
 * Under COLOC_SHARE only persistent forms run beside a busy latency tenant
 * (the others wait for it to be idle): when the kernel has one that was
 * measured, the choice is among those.
 */
static bool ptb_only(const struct entry *e, unsigned forms)
{
	if (!coloc_share_units() || !(forms & (1u << VARIANT_PTB)))
		return false;
	for (unsigned i = 0; i < e->n; i++)
		if (e->m[i].form == VARIANT_PTB && usable(&e->m[i], forms))
			return true;
	return false;
}

/* What a candidate costs when none is within the bound: time x turnaround. */
static double cost(const struct measurement *m, unsigned forms)
{
	return (double)m->time_ns * (double)turn_of(m, forms);
}

static void decide(struct entry *e, unsigned forms)
{
	const struct measurement *best = NULL;
	uint64_t fastest = UINT64_MAX;
	bool fits = false, only_ptb = ptb_only(e, forms);

	for (unsigned i = 0; i < e->n; i++)
		if (usable(&e->m[i], forms) && (!only_ptb || e->m[i].form == VARIANT_PTB) &&
		    e->m[i].time_ns < fastest)
			fastest = e->m[i].time_ns;
	for (unsigned i = 0; i < e->n; i++) {
		const struct measurement *m = &e->m[i];
		bool in = turn_of(m, forms) <= coloc_cfg.turnaround_ns;

		if (!usable(m, forms) || (only_ptb && m->form != VARIANT_PTB) ||
		    (!in && m->time_ns > 2 * fastest))
			continue;
		if (!best || (in && !fits) ||
		    (in == fits && (fits ? m->time_ns < best->time_ns :
				     cost(m, forms) < cost(best, forms))))
			best = m, fits = in;
	}
	e->decided = true;
	e->choice = static_form(forms);
	if (!best)
		return;
	e->choice.form = best->form;
	e->choice.param = best->param;
	if (only_ptb) {
		const struct measurement *orig = find(e, FORM_ORIGINAL, 0);

		if (orig && usable(orig, forms) && orig->turn_ns <= coloc_cfg.turnaround_ns &&
		    orig->time_ns < best->time_ns)
			e->choice.idle_original_ns = orig->time_ns;
	}
	if (coloc_log_on(COLOC_LOG_INFO)) {
		char list[CANDIDATES * 80];
		size_t len = 0;

		list[0] = 0;
		for (unsigned i = 0; i < e->n && len < sizeof(list); i++) {
			const struct measurement *m = &e->m[i];
			char how[48] = "";

			if (m->form == VARIANT_PTB && (forms & COLOC_FORMS_RESTART))
				snprintf(how, sizeof(how), !m->stops ? ", not stopped yet" :
					 m->stops >= STOPS_COUNTED ? ", at its stops" :
					 ", %u of %d stops before it counts", m->stops,
					 STOPS_COUNTED);
			if (m->samples)
				len += (size_t)snprintf(list + len, sizeof(list) - len,
							"%s %s:%u %.1f us (turnaround %.1f us%s)",
							len ? "," : "", form_name(m->form), m->units,
							m->time_ns / 1e3, turn_of(m, forms) / 1e3, how);
		}
		coloc_log(COLOC_LOG_INFO, "profile: %s grid %u,%u,%u block %u,%u,%u:%s -> %s:%u%s%s",
			  e->kernel, e->grid.x, e->grid.y, e->grid.z, e->block.x, e->block.y,
			  e->block.z, list, form_name(best->form), best->units,
			  fits ? "" : " (nothing within the bound: least time x turnaround within "
				      "2x the fastest)",
			  e->choice.idle_original_ns ? ", original while no latency tenant is busy" :
						       "");
	}
}

/* ---- measuring */

static void probe_free(struct coloc_probe *p)
{
	if (p->start)
		REAL(cuEventDestroy_v2)(p->start);
	if (p->end)
		REAL(cuEventDestroy_v2)(p->end);
	if (p->e)
		p->e->probing = false;
	free(p);
}

/* Counts a finished probe's elapsed time into its candidate. */
static void take(struct coloc_probe *p, uint64_t ns, bool clean)
{
	struct measurement *m = &p->e->m[p->cand];
	uint64_t rounds;

	coloc_stat_add(STAT_PROFILE_SAMPLES, 1);
	m->tries++;
	if (!clean) {
		if (!m->dirty_ns || ns < m->dirty_ns)
			m->dirty_ns = ns;
		if (m->tries < TRIES || m->samples)
			return;
		ns = m->dirty_ns;
	}
	if (!m->samples || ns < m->time_ns)
		m->time_ns = ns;
	m->samples++;
	switch (m->form) {
	case VARIANT_SLICE:
		m->turn_ns = m->time_ns / (m->units ? m->units : 1);
		break;
	case VARIANT_PTB:
		rounds = (blocks_of(p->e->grid) + m->units - 1) / (m->units ? m->units : 1);
		m->turn_ns = m->time_ns / (rounds ? rounds : 1);
		break;
	default:
		m->turn_ns = m->time_ns;
	}
	p->e->saved = false;
}

/* Reads the probes of the current context whose launches are done. */
static void poll(CUcontext ctx)
{
	struct coloc_probe **pp = &prof.pending, *p;

	while ((p = *pp)) {
		CUresult rc;
		float ms = 0;

		if (p->ctx != ctx) {
			pp = &p->next;
			continue;
		}
		rc = REAL(cuEventQuery)(p->end);
		if (rc == CUDA_ERROR_NOT_READY) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		if (rc == CUDA_SUCCESS &&
		    REAL(cuEventElapsedTime)(&ms, p->start, p->end) == CUDA_SUCCESS && ms >= 0)
			take(p, (uint64_t)((double)ms * 1e6), disturbances() == p->disturbed);
		probe_free(p);
	}
}

/*
 * What a persistent launch too short to hold runs instead (coloc_run_form's
 * hold_sliced): the fastest sliced candidate whose slices took
 * COLOC_HOLD_SLICE_TURNS bounds at most; where none was measured, slices
 * of the device's wave when the kernel's measured time `ns` is that short,
 * since no slice of it is longer.  False: none.
 */
static bool short_slices(const struct entry *e, uint64_t ns, unsigned *slices)
{
	const struct measurement *best = NULL;
	uint64_t most = COLOC_HOLD_SLICE_TURNS * coloc_cfg.turnaround_ns;
	bool sliced = false;

	for (unsigned i = 0; i < e->n; i++) {
		const struct measurement *m = &e->m[i];

		if (m->form != VARIANT_SLICE || !m->samples)
			continue;
		sliced = true;
		if (m->turn_ns <= most && (!best || m->time_ns < best->time_ns))
			best = m;
	}
	*slices = best ? best->param : 0;
	return best || (!sliced && ns && ns <= most);
}

void coloc_profile_choose(struct coloc_module *m, const char *kernel, struct coloc_dim3 grid,
			  struct coloc_dim3 block, unsigned shmem, unsigned forms,
			  struct coloc_run_form *out, struct coloc_probe **probe)
{
	char key[65];
	CUcontext ctx = NULL;
	CUdevice device = -1;
	struct coloc_run_form c;
	struct measurement *meas;
	struct entry *e;
	bool profiling = coloc_cfg.form == COLOC_FORM_AUTO;
	/*
	 * A module without PTX has no cache key (that is a hash of its PTX):
	 * its kernels, which only run original, are timed for the depth of work
	 * in flight and the coverage figures, and kept in memory only, under a
	 * key that names the module within this process.
	 */
	bool on_disk = m->ptx != NULL;

	*probe = NULL;
	*out = static_form(forms);
	if (!coloc_cfg.profile)
		return;
	if (REAL(cuCtxGetCurrent)(&ctx) != CUDA_SUCCESS || !ctx ||
	    REAL(cuCtxGetDevice)(&device) != CUDA_SUCCESS)
		return;
	if (on_disk)
		coloc_module_key(m, key);
	else
		snprintf(key, sizeof(key), "compiled-only-%lu", m->serial);
	pthread_mutex_lock(&prof.lock);
	prof.launches++;
	poll(ctx);
	if (on_disk)
		load(key, device, m->sm);
	if (!(e = lookup(key, kernel, device, grid, block, shmem, true)))
		goto out;
	if (!profiling) {
		/* A forced form: measured only for the coverage figures. */
		c = *out;
	} else if (e->decided) {
		/*
		 * A choice made where other forms could run (a profile from an MPS
		 * run read without MPS, a context whose persistent kernels were
		 * turned off since) is made again among the forms this launch has.
		 */
		if (e->choice.form != FORM_ORIGINAL && !(forms & (1u << e->choice.form)))
			decide(e, forms);
		c = e->choice;
	} else if (e->probing) {
		c = *out;
	} else if (!next_candidate(e, forms, &c)) {
		decide(e, forms);
		coloc_stat_add(STAT_PROFILE_CHOICES, 1);
		if (e->saved)
			coloc_stat_add(STAT_PROFILE_LOADED, 1);
		else if (on_disk)
			save(e, m->sm);
		c = e->choice;
	}
	*out = c;
	meas = find(e, c.form, c.param);
	out->estimate_ns = meas && meas->samples ? meas->time_ns : 0;
	out->hold_sliced = short_slices(e, out->estimate_ns, &out->hold_slices);
	/* Its stops are counted where its run time is (persistent forms). */
	if (c.form == VARIANT_PTB && (meas || (meas = add(e, c.form, c.param))))
		out->turns = (struct coloc_turn_ref){ e, (unsigned)(meas - e->m) };
	out->batch = coloc_cfg.ptb_batch ? coloc_cfg.ptb_batch :
		     c.form == VARIANT_PTB && meas && meas->samples ? batch_for(e, meas) : 1;
	if (e->probing || measured(meas) || !(meas = add(e, c.form, c.param)))
		goto out;
	if ((*probe = calloc(1, sizeof(**probe)))) {
		(*probe)->e = e;
		(*probe)->cand = (unsigned)(meas - e->m);
		(*probe)->ctx = ctx;
		e->probing = true;
	}
out:
	pthread_mutex_unlock(&prof.lock);
}

void coloc_profile_stopped(struct coloc_turn_ref ref, uint64_t ns)
{
	struct entry *e = ref.entry;
	struct measurement *m;
	uint64_t top = 0, second = 0;
	bool was_in, in;

	if (!e || ref.cand >= CANDIDATES)
		return;
	pthread_mutex_lock(&prof.lock);
	m = &e->m[ref.cand];
	was_in = m->stops < STOPS_COUNTED || m->stop_ns <= coloc_cfg.turnaround_ns;
	m->recent[m->nrecent++ % RECENT_STOPS] = ns;
	for (unsigned i = 0; i < RECENT_STOPS && i < m->nrecent; i++) {
		if (m->recent[i] > top)
			second = top, top = m->recent[i];
		else if (m->recent[i] > second)
			second = m->recent[i];
	}
	m->stop_ns = m->nrecent < 2 ? top : second;
	m->stops++;
	in = m->stops < STOPS_COUNTED || m->stop_ns <= coloc_cfg.turnaround_ns;
	/*
	 * The stop that makes its turnaround count, or one that moved it across
	 * the bound: the choice (which took the form as within it until then)
	 * is made again, and saved.
	 */
	if (m->stops == STOPS_COUNTED || in != was_in) {
		e->saved = false;
		e->decided = false;
	}
	coloc_log(COLOC_LOG_DEBUG, "profile: %s grid %u,%u,%u block %u,%u,%u: %s:%u stopped in "
		  "%.1f us (of its last %u stops, %.1f us)", e->kernel, e->grid.x, e->grid.y,
		  e->grid.z, e->block.x, e->block.y, e->block.z, form_name(m->form), m->units,
		  ns / 1e3, m->nrecent < RECENT_STOPS ? m->nrecent : RECENT_STOPS, m->stop_ns / 1e3);
	pthread_mutex_unlock(&prof.lock);
}

void coloc_profile_start(struct coloc_probe *p, CUstream stream, enum coloc_stream_flavor flavor)
{
	if (!p)
		return;
	p->disturbed = disturbances();
	p->launches = __atomic_load_n(&prof.launches, __ATOMIC_RELAXED);
	if (REAL(cuEventCreate)(&p->start, 0) != CUDA_SUCCESS ||
	    REAL(cuEventCreate)(&p->end, 0) != CUDA_SUCCESS ||
	    (flavor == STREAM_PTDS ? REAL(cuEventRecord_ptsz)(p->start, stream) :
				     REAL(cuEventRecord)(p->start, stream)) != CUDA_SUCCESS)
		p->failed = true;
}

void coloc_profile_stop(struct coloc_probe *p, CUstream stream, enum coloc_stream_flavor flavor,
			bool launched, unsigned units)
{
	if (!p)
		return;
	pthread_mutex_lock(&prof.lock);
	if (!launched || p->failed || !p->start ||
	    (flavor == STREAM_PTDS ? REAL(cuEventRecord_ptsz)(p->end, stream) :
				     REAL(cuEventRecord)(p->end, stream)) != CUDA_SUCCESS) {
		probe_free(p);
	} else {
		p->e->m[p->cand].units = units ? units : 1;
		/*
		 * Held back or preempted while being launched, or another thread's
		 * launch fell between the events: not what the kernel costs.
		 */
		if (disturbances() != p->disturbed || prof.launches != p->launches)
			p->disturbed = UINT64_MAX;
		p->next = prof.pending;
		prof.pending = p;
	}
	pthread_mutex_unlock(&prof.lock);
}
