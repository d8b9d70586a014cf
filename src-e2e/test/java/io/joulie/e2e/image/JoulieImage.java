package io.joulie.e2e.image;

import java.nio.file.Path;

/**
 * The two images the build writes (pom.xml, jib-maven-plugin): where each archive lands and the name it carries.
 * The repository and tag come from the build (surefire's joulie.image.repository and joulie.image.tag).
 */
public enum JoulieImage {
    OPERATOR("src", "joulie-operator"),
    AGENT("src-agent", "joulie-agent");

    private final String module;
    private final String name;

    JoulieImage(String module, String name) {
        this.module = module;
        this.name = name;
    }

    /** The application module's directory, e.g. {@code src-agent}. */
    public String module() {
        return module;
    }

    /** {@code <module>/target/<name>-image.tar}. */
    public Path tarball(Path repo) {
        return repo.resolve(module).resolve("target").resolve(name + "-image.tar");
    }

    /** {@code <module>/target/quarkus-app}: what the image holds at /deployments. */
    public Path quarkusApp(Path repo) {
        return repo.resolve(module).resolve("target").resolve("quarkus-app");
    }

    /** {@code <module>/pom.xml}: where the image's entrypoint is written. */
    public Path pom(Path repo) {
        return repo.resolve(module).resolve("pom.xml");
    }

    /** {@code quay.io/joulie/joulie-agent:0.1.0}, as the build names it. */
    public String reference() {
        return property("joulie.image.repository") + "/" + name + ":" + property("joulie.image.tag");
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set (src-e2e/pom.xml passes it to the tests)");
        }
        return value;
    }
}
