package io.joulie.e2e;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The alerting rules pass {@code promtool check rules}, and the unit tests of src-e2e/test/resources/alerts-test.yaml
 * ({@code promtool test rules}) show each alert firing on its input series and silent otherwise. promtool comes
 * with Debian's {@code prometheus} package ({@code .ci/run} installs it); without it this test fails.
 */
class PrometheusRulesTest {
    static final Path TESTS = Path.of(System.getProperty("repository.root"), "src-e2e", "test", "resources", "alerts-test.yaml");

    @Test
    void promtoolChecksTheRules() throws Exception {
        String out = promtool("check", "rules", Monitoring.ALERTS.toString());
        assertThat(out).contains("SUCCESS: " + Monitoring.alertQueries(Monitoring.alerts()).size() + " rules found");
    }

    @Test
    void promtoolUnitTestsOfEveryAlertPass() throws Exception {
        assertThat(TESTS).exists();
        String out = promtool("test", "rules", TESTS.toString());
        assertThat(out).contains("SUCCESS");
    }

    /** Runs promtool and returns its output; fails the test with that output unless it exits 0. */
    static String promtool(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return fail("promtool is not installed (Debian: apt-get install -y prometheus); it checks the alerting rules: " + e.getMessage());
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
        assertThat(p.exitValue()).as("promtool %s exit code; output:%n%s", String.join(" ", args), out).isZero();
        return out;
    }
}
