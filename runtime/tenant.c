/*
 * Whether a coordinator slot still names its process: the pid and the
 * process's start time must both match, so a reused pid is not taken for
 * the tenant that died.  Shared by libcoloc and colocctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
