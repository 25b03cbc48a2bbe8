/*
 * What libcoloc and colocctl both do to a coordinator slot: tell whether it
 * still names its process (the pid and the process's start time must both
 * match, so a reused pid is not taken for the tenant that died), and post a
 * discard request to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coloc.h"
#include "coord.h"

uint64_t coloc_process_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Fields after the command, which may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	return start ? start : 1;
}

int coloc_tenant_alive(const struct coloc_tenant *t)
{
	pid_t pid = __atomic_load_n(&t->pid, __ATOMIC_ACQUIRE);

	if (pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 0;
	return coloc_process_start(pid) == t->start_time;
}

int coloc_tenant_post_discard_locked(struct coloc_segment *s, pid_t pid, uint64_t bytes,
				     uint32_t *seq)
{
	struct timespec now;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		struct coloc_tenant *t = &s->tenants[i];

		if (t->pid != pid || !coloc_tenant_alive(t))
			continue;
		if (t->role != COLOC_ROLE_BEST_EFFORT)
			return -EPERM;
		/* Bytes and time are written before the sequence that publishes them. */
		if (__atomic_load_n(&t->discard_req, __ATOMIC_ACQUIRE) == t->discard_ack) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			t->discard_req_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
		} else {
			bytes = bytes > UINT64_MAX - t->discard_bytes ? UINT64_MAX :
								       bytes + t->discard_bytes;
		}
		__atomic_store_n(&t->discard_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->discard_req, 1, __ATOMIC_RELEASE);
		if (seq)
			*seq = t->discard_req;
		return 0;
	}
	return -ESRCH;
}
