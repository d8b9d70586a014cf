/*
 * The Pod sandbox's process (the "pause" container) of the e2e suite's real node: it holds the Pod's namespaces
 * and does nothing else until it is told to stop. Built statically by RealNode with gcc and imported into containerd
 * as the sandbox image, since no registry is reachable.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal_number) {
    (void) signal_number;
    _exit(0);
}

static void reap(int signal_number) {
    (void) signal_number;
    while (waitpid(-1, 0, WNOHANG) > 0) {
    }
}

int main(void) {
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    signal(SIGCHLD, reap);
    for (;;) {
        pause();
    }
}
