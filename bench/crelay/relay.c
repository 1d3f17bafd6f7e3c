/*
 * relay.c: the floor of bench/proxy.sh below the Go copy relay (bench/copyrelay): a
 * stdio relay in C that only copies bytes, one thread per direction in blocking read
 * and write, no runtime. What it costs a call is what any relay process costs on the
 * machine: two more processes woken per round trip and a read and a write for each
 * message.
 *
 *   cc -O2 -pthread -o crelay bench/crelay/relay.c
 *   crelay COMMAND [ARG...]
 *
 * It starts COMMAND with pipes for its stdin and stdout, copies its own stdin to the
 * command's and the command's stdout to its own, and exits when either stream ends.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

struct pump {
	int from, to;
};

/* finish stops the command and exits: one side's stream ended or failed. */
static void finish(void)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	exit(0);
}

/* copy moves bytes from one descriptor to the other until the input ends. */
static void *copy(void *arg)
{
	struct pump *p = arg;
	char buf[65536];
	for (;;) {
		ssize_t n = read(p->from, buf, sizeof buf);
		if (n <= 0)
			finish();
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(p->to, buf + off, (size_t)(n - off));
			if (w <= 0)
				finish();
			off += w;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int in[2], out[2];
	if (argc < 2) {
		fputs("usage: crelay COMMAND [ARG...]\n", stderr);
		return 2;
	}
	if (pipe(in) < 0 || pipe(out) < 0) {
		perror("crelay: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("crelay: fork");
		return 1;
	}
	if (child == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[1], argv + 1);
		perror("crelay: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	signal(SIGPIPE, SIG_IGN);
	static struct pump up, down;
	up.from = 0;
	up.to = in[1];
	down.from = out[0];
	down.to = 1;
	pthread_t t;
	if (pthread_create(&t, NULL, copy, &down) != 0) {
		fputs("crelay: thread\n", stderr);
		return 1;
	}
	copy(&up);
	return 0;
}
