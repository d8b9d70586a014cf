package io.joulie.operator.manifests;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's application.properties, from which the ClusterRoles are generated, sets no key twice: the later
 * line silently wins (SmallRye only warns), so two RBAC rules given the same index leave one of them out of the
 * manifests, and the drift check, comparing the build with the committed files, cannot see it.
 */
class ApplicationPropertiesTest {

    @Test
    void noKeyIsSetTwice() throws IOException {
        Path file = Manifests.repository().resolve("src/main/resources/application.properties");
        Set<String> seen = new HashSet<>();
        List<String> repeated = Files.readAllLines(file).stream()
                .map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#") && line.contains("="))
                .map(line -> line.substring(0, line.indexOf('=')).strip())
                .filter(key -> !seen.add(key))
                .toList();
        assertThat(repeated).as("keys of " + file + " set more than once").isEmpty();
    }
}
