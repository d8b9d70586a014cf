package io.joulie.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What the tests take from the repository: a tool its build script builds (or finds cached), a documented command. */
public final class RepoFiles {
    private RepoFiles() {
    }

    /**
     * Runs {@code bash <repo>/<script>} (its progress on the test's stderr) and returns the path it prints last: the
     * binary it built or found in its cache.
     *
     * @param whenFailed said after the exit code when the script fails
     * @param args the script's arguments
     */
    public static Path built(Path repo, String script, String whenFailed, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve(script).toString()));
        command.addAll(List.of(args));
        Process build = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (build.waitFor() != 0) {
            throw new IOException(script + " failed (exit " + build.exitValue() + ")" + whenFailed);
        }
        return Path.of(out.substring(out.lastIndexOf('\n') + 1));
    }

    /** The first line of {@code doc} that starts with {@code start}, without a trailing {@code # comment}: a documented command. */
    public static String documented(Path doc, String start) throws IOException {
        return Files.readAllLines(doc).stream().filter(l -> l.startsWith(start)).findFirst()
                .map(l -> l.replaceFirst("\\s+#.*$", ""))
                .orElseThrow(() -> new IllegalStateException(doc.getFileName() + " has no line starting with '" + start + "'"));
    }
}
