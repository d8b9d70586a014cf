package io.joulie.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The build an application runs: {@code joulie.version} and the source revision a release build is given
 * ({@code -Drelease.revision}, docs/releasing.md; {@code development} otherwise), as Maven wrote them into
 * {@code META-INF/joulie-build.properties}. Both applications export it as their build-info metric.
 */
public record BuildInfo(String version, String revision) {
    public static final String RESOURCE = "META-INF/joulie-build.properties";

    /** This build's, from the resource next to this class. */
    public static BuildInfo current() {
        try (InputStream in = BuildInfo.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the application");
            }
            Properties p = new Properties();
            p.load(in);
            return new BuildInfo(p.getProperty("version", "unknown"), p.getProperty("revision", "unknown"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
