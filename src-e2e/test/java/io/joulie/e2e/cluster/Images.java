package io.joulie.e2e.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The image archives {@code ./mvnw package} builds (Jib, OCI), as the real node imports them. */
final class Images {
    static final Path OPERATOR = RealCluster.REPO.resolve("src/target/joulie-operator-image.tar");
    static final Path AGENT = RealCluster.REPO.resolve("src-agent/target/joulie-agent-image.tar");

    private Images() {
    }

    /** Both archives; fails naming the build command when one is missing. */
    static List<Path> archives() {
        for (Path p : List.of(OPERATOR, AGENT)) {
            if (!Files.isRegularFile(p)) {
                throw new IllegalStateException(p + " is missing: ./mvnw package builds both images (docs/install.md)");
            }
        }
        return List.of(OPERATOR, AGENT);
    }
}
