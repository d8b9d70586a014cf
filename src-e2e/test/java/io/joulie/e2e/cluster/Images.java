package io.joulie.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The image archives {@code ./mvnw package} builds (Jib, OCI), as the real node imports them. */
final class Images {
    static final Path OPERATOR = RealCluster.REPO.resolve("src/target/joulie-operator-image.tar");
    static final Path AGENT = RealCluster.REPO.resolve("src-agent/target/joulie-agent-image.tar");

    private Images() {
    }

    /**
     * Both archives; fails naming the build command when one is missing or older than its application's build (src-e2e
     * does not depend on the application modules: a build of this module alone leaves their images as they were).
     */
    static List<Path> archives() {
        for (Path archive : List.of(OPERATOR, AGENT)) {
            Path jar = archive.resolveSibling("quarkus-app/quarkus-run.jar");
            if (!Files.isRegularFile(archive)) {
                throw new IllegalStateException(archive + " is missing: ./mvnw package builds both images (docs/install.md)");
            }
            try {
                if (Files.isRegularFile(jar) && Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(archive)) > 0) {
                    throw new IllegalStateException(archive + " is older than " + jar + ": build the images again with "
                            + "./mvnw -pl src,src-agent -am package -DskipTests (or run the e2e module with -pl src,src-agent,src-e2e -am)");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return List.of(OPERATOR, AGENT);
    }
}
