/*
 * Joining the coordinator of a GPU: the shared segment of coord.h.
 *
 * The segment is a file, COLOC_RUN_DIR/coloc-<uid>-<PCI bus id> (default
 * /dev/shm), mapped by every tenant of that GPU.  The first tenant creates
 * and initializes it under flock; the tenant table's lock is a robust
 * process-shared mutex, so a tenant killed while holding it does not wedge
 * the others.  Slots of processes that died are reaped by whoever notices:
 * a joining tenant, a best-effort tenant waiting on a latency tenant that
 * seems busy for long, colocctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coord.h"
#include "scheduler.h"

static void seg_lock(struct coloc_segment *s)
{
	if (pthread_mutex_lock(&s->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&s->lock); /* its owner died; the table is still whole */
}

/* Removes the slots of dead processes; under the lock. */
static unsigned reap_locked(struct coloc_segment *s)
{
	unsigned n = 0;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		struct coloc_tenant *t = &s->tenants[i];

		if (t->pid && !coloc_tenant_alive(t)) {
			coloc_log(COLOC_LOG_INFO, "coordinator: tenant %d (%s) is gone; its slot is freed",
				  t->pid, t->comm);
			__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&t->pid, 0, __ATOMIC_RELEASE);
			n++;
		}
	}
	s->reaped += n;
	if (n)
		coloc_coord_signal(s);
	return n;
}

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

uint32_t coloc_coord_signal(struct coloc_segment *s)
{
	uint32_t epoch = __atomic_add_fetch(&s->epoch, 1, __ATOMIC_SEQ_CST);

	if (__atomic_load_n(&s->waiters, __ATOMIC_SEQ_CST))
		futex(&s->epoch, FUTEX_WAKE, INT32_MAX, NULL);
	return epoch;
}

void coloc_coord_wait(struct coloc_segment *s, uint32_t seen, uint64_t timeout_ns)
{
	struct timespec t = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };

	__atomic_fetch_add(&s->waiters, 1, __ATOMIC_SEQ_CST);
	/* The segment is shared between processes: not FUTEX_PRIVATE_FLAG. */
	futex(&s->epoch, FUTEX_WAIT, seen, &t);
	__atomic_fetch_sub(&s->waiters, 1, __ATOMIC_SEQ_CST);
}

unsigned coloc_coord_reap(struct coloc_segment *s)
{
	unsigned n;

	seg_lock(s);
	n = reap_locked(s);
	pthread_mutex_unlock(&s->lock);
	return n;
}

static int seg_init(struct coloc_segment *s, const char *gpu)
{
	pthread_mutexattr_t a;

	memset(s, 0, sizeof(*s));
	if (pthread_mutexattr_init(&a) || pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) || pthread_mutex_init(&s->lock, &a))
		return -1;
	pthread_mutexattr_destroy(&a);
	snprintf(s->gpu, sizeof(s->gpu), "%s", gpu);
	s->version = COLOC_SEGMENT_VERSION;
	s->size = sizeof(*s);
	__atomic_store_n(&s->magic, COLOC_SEGMENT_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

struct coloc_segment *coloc_coord_open(const char *gpu, char *path, size_t path_size)
{
	const char *dir = getenv("COLOC_RUN_DIR");
	struct coloc_segment *s;
	struct stat st;
	int fd;

	/* A directory named by COLOC_RUN_DIR is made when missing, for its owner only. */
	if (dir && *dir && coloc_mkdirs(dir, 0700) < 0) {
		coloc_log(COLOC_LOG_ERROR, "coordinator: cannot make COLOC_RUN_DIR '%s': %s", dir,
			  strerror(errno));
		return NULL;
	}
	snprintf(path, path_size, "%s/coloc-%ld-%s", dir && *dir ? dir : "/dev/shm", (long)getuid(),
		 gpu);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		coloc_log(COLOC_LOG_ERROR, "coordinator: cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0 ||
	    (st.st_size == 0 && ftruncate(fd, sizeof(*s)) < 0)) {
		coloc_log(COLOC_LOG_ERROR, "coordinator: cannot set up '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (st.st_size != 0 && st.st_size != (off_t)sizeof(*s)) {
		coloc_log(COLOC_LOG_ERROR, "coordinator: '%s' is %lld bytes, not a segment of this "
			  "colocc (%zu bytes); remove it when no tenant runs", path,
			  (long long)st.st_size, sizeof(*s));
		close(fd);
		return NULL;
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED) {
		coloc_log(COLOC_LOG_ERROR, "coordinator: cannot map '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (s->magic != COLOC_SEGMENT_MAGIC && seg_init(s, gpu) < 0) {
		munmap(s, sizeof(*s));
		s = NULL;
	} else if (s->version != COLOC_SEGMENT_VERSION) {
		coloc_log(COLOC_LOG_ERROR, "coordinator: '%s' has layout version %u, colocc's is %d",
			  path, s->version, COLOC_SEGMENT_VERSION);
		munmap(s, sizeof(*s));
		s = NULL;
	}
	flock(fd, LOCK_UN);
	close(fd);
	return s;
}

struct coloc_tenant *coloc_coord_join(struct coloc_segment *s, enum coloc_role role)
{
	struct coloc_tenant *t = NULL;
	char comm[32] = "?";
	FILE *f = fopen("/proc/self/comm", "re");

	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	seg_lock(s);
	reap_locked(s);
	for (int i = 0; i < COLOC_MAX_TENANTS && !t; i++)
		if (!s->tenants[i].pid)
			t = &s->tenants[i];
	if (t) {
		memset(t, 0, sizeof(*t));
		t->role = role;
		t->start_time = coloc_process_start(getpid());
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
		t->mps = coloc_cfg.mps;
		/* Cut to the slot's length (a long pipe directory). */
		snprintf(t->mps_detail, sizeof(t->mps_detail), "%.*s",
			 (int)sizeof(t->mps_detail) - 1, coloc_cfg.mps_detail);
		__atomic_store_n(&t->pid, getpid(), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&s->lock);
	if (!t)
		coloc_log(COLOC_LOG_ERROR, "coordinator: the tenant table of GPU %s is full (%d)",
			  s->gpu, COLOC_MAX_TENANTS);
	return t;
}

void coloc_coord_leave(struct coloc_segment *s, struct coloc_tenant *t)
{
	bool was_busy;

	seg_lock(s);
	was_busy = __atomic_exchange_n(&t->busy, 0, __ATOMIC_ACQ_REL) != 0;
	__atomic_store_n(&t->pid, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	/* Best-effort watchers waiting for this tenant to go idle resume now. */
	if (was_busy)
		coloc_coord_signal(s);
}

/* ---- device memory: the tenants' allocations against the GPU's budget */

/* What the table's tenants hold; under the lock. */
static uint64_t mem_used_locked(const struct coloc_segment *s)
{
	uint64_t used = 0;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++)
		if (s->tenants[i].pid)
			used += s->tenants[i].mem_held;
	return used;
}

/* What tenant `t` may hold with everyone else's allocations as they are; under the lock. */
static uint64_t mem_limit_locked(const struct coloc_segment *s, const struct coloc_tenant *t)
{
	uint64_t limit = s->mem_budget;

	if (t->role == COLOC_ROLE_BEST_EFFORT) {
		uint64_t keep = s->mem_reserve + s->mem_hold;

		limit = limit > keep ? limit - keep : 0;
	}
	return limit;
}

int coloc_coord_mem_charge(struct coloc_segment *s, struct coloc_tenant *t, uint64_t bytes,
			   uint64_t budget, uint64_t reserve)
{
	uint64_t used, limit;
	int rc = 0;

	seg_lock(s);
	if (!s->mem_budget) {
		s->mem_budget = budget;
		s->mem_reserve = reserve < budget ? reserve : budget;
	}
	limit = mem_limit_locked(s, t);
	used = mem_used_locked(s);
	/* The dead give their memory back: the driver freed it with their context. */
	if (used + bytes > limit && reap_locked(s))
		used = mem_used_locked(s);
	if (used + bytes > limit || used + bytes < used) {
		rc = -1;
	} else {
		t->mem_held += bytes;
		if (t->mem_held > t->mem_peak)
			t->mem_peak = t->mem_held;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void coloc_coord_mem_refund(struct coloc_segment *s, struct coloc_tenant *t, uint64_t bytes)
{
	seg_lock(s);
	t->mem_held = t->mem_held > bytes ? t->mem_held - bytes : 0;
	pthread_mutex_unlock(&s->lock);
}

void coloc_coord_mem_view(struct coloc_segment *s, struct coloc_tenant *t, uint64_t *room,
			  uint64_t *budget)
{
	uint64_t used, limit;

	seg_lock(s);
	used = mem_used_locked(s);
	limit = mem_limit_locked(s, t);
	*room = limit > used ? limit - used : 0;
	*budget = s->mem_budget;
	pthread_mutex_unlock(&s->lock);
}

uint64_t coloc_coord_mem_shortfall(struct coloc_segment *s, struct coloc_tenant *t, uint64_t bytes)
{
	uint64_t used, limit;

	seg_lock(s);
	used = mem_used_locked(s);
	limit = mem_limit_locked(s, t);
	pthread_mutex_unlock(&s->lock);
	return used + bytes > limit ? used + bytes - limit : 0;
}

void coloc_coord_mem_cached(struct coloc_segment *s, struct coloc_tenant *t, int64_t delta)
{
	seg_lock(s);
	if (delta < 0 && (uint64_t)-delta > t->mem_cached)
		t->mem_cached = 0;
	else
		t->mem_cached += (uint64_t)delta;
	pthread_mutex_unlock(&s->lock);
}

/* ---- memory handover (handover.c): requests to best-effort tenants' pools */

int coloc_coord_post_reclaim(struct coloc_segment *s, struct coloc_tenant *t,
			     enum coloc_reclaim kind, uint64_t bytes, uint32_t *seq)
{
	int rc = -ESRCH;

	seg_lock(s);
	if (t->pid && coloc_tenant_alive(t) && t->role == COLOC_ROLE_BEST_EFFORT && t->mem_pool) {
		t->mem_req_kind = kind;
		t->mem_req_bytes = bytes;
		*seq = __atomic_add_fetch(&t->mem_req, 1, __ATOMIC_ACQ_REL);
		rc = 0;
	}
	pthread_mutex_unlock(&s->lock);
	if (rc == 0)
		coloc_coord_signal(s); /* the tenant's memory thread sleeps on the epoch */
	return rc;
}

void coloc_coord_reclaim_ack(struct coloc_segment *s, struct coloc_tenant *t, uint32_t seq,
			     uint64_t given)
{
	seg_lock(s);
	t->mem_given += given;
	__atomic_store_n(&t->mem_ack, seq, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	coloc_coord_signal(s); /* the latency tenant waits for the answer */
}

/* Whether a live latency tenant of `s` is in the middle of a handover; under the lock. */
static bool wanting_locked(const struct coloc_segment *s)
{
	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		const struct coloc_tenant *t = &s->tenants[i];

		if (t->pid && t->role == COLOC_ROLE_LATENCY &&
		    __atomic_load_n(&t->mem_wanting, __ATOMIC_SEQ_CST) && coloc_tenant_alive(t))
			return true;
	}
	return false;
}

void coloc_coord_handover_record(struct coloc_segment *s, enum coloc_handover_path path,
				 uint64_t bytes, uint64_t ns, uint64_t hold, uint64_t now_ns)
{
	struct coloc_handover_stats *h = &s->handover[path];
	uint64_t us = ns / 1000u;

	seg_lock(s);
	h->us[h->count % COLOC_HANDOVER_SAMPLES] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	h->count++;
	h->bytes += bytes;
	/* Another handover still waiting keeps the room it holds. */
	if (!wanting_locked(s)) {
		s->mem_hold = path == COLOC_PATH_FAILED ? 0 : hold < s->mem_budget ? hold :
										    s->mem_budget;
		s->mem_hold_ns = now_ns;
	}
	pthread_mutex_unlock(&s->lock);
}

void coloc_coord_hold(struct coloc_segment *s, uint64_t bytes, uint64_t now_ns)
{
	seg_lock(s);
	if (bytes > s->mem_hold)
		s->mem_hold = bytes < s->mem_budget ? bytes : s->mem_budget;
	s->mem_hold_ns = now_ns;
	pthread_mutex_unlock(&s->lock);
}

bool coloc_coord_hold_expire(struct coloc_segment *s, uint64_t idle_ns, uint64_t now_ns)
{
	bool expired = false;

	seg_lock(s);
	/* Not while a handover waits: it may take longer than T_idle (COLOC_MEM_WAIT_MS). */
	if (s->mem_hold && now_ns - s->mem_hold_ns >= idle_ns && !wanting_locked(s)) {
		s->mem_hold = 0;
		expired = true;
	}
	pthread_mutex_unlock(&s->lock);
	if (expired)
		coloc_coord_signal(s); /* swapped-out tenants may come back */
	return expired;
}

/* ---- the discard protocol (discard.c): requests and acknowledgements */

int coloc_coord_request_discard(struct coloc_segment *s, pid_t pid, uint64_t bytes, uint32_t *seq)
{
	int rc;

	seg_lock(s);
	rc = coloc_tenant_post_discard_locked(s, pid, bytes, seq);
	pthread_mutex_unlock(&s->lock);
	if (rc == 0)
		coloc_coord_signal(s); /* the tenant's callback thread sleeps on the epoch */
	return rc;
}

int coloc_coord_discard_ack(struct coloc_segment *s, struct coloc_tenant *t, uint32_t seq,
			    uint64_t freed)
{
	struct timespec now;
	uint64_t ns;

	seg_lock(s);
	/* Sequences wrap: `seq` is newer than the last acknowledgement or it is old news. */
	if ((int32_t)(seq - t->discard_ack) <= 0) {
		pthread_mutex_unlock(&s->lock);
		return -EALREADY;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - t->discard_req_ns;
	t->discard_us[t->discards % COLOC_DISCARD_SAMPLES] =
		ns / 1000u > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000u);
	t->discard_ns_total += ns;
	t->discard_freed = freed;
	t->discards++;
	/*
	 * Requests posted after the tenant looked stay outstanding; what they
	 * want cannot be told apart from what the handled ones wanted, so the
	 * sum stays: more than they asked, never less.
	 */
	if (t->discard_req == seq)
		__atomic_store_n(&t->discard_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->discard_ack, seq, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	coloc_coord_signal(s); /* a requester may wait for the reply */
	return 0;
}
