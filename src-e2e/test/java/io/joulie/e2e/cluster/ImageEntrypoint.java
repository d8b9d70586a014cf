package io.joulie.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a container image starts its application: the JVM options of the Dockerfile's exec-form ENTRYPOINT and the
 * environment of its {@code ENV NAME=VALUE} lines.
 */
final class ImageEntrypoint {
    private static final Pattern ENTRYPOINT = Pattern.compile("^ENTRYPOINT\\s*\\[(.*)]\\s*$", Pattern.MULTILINE);
    private static final Pattern ENV = Pattern.compile("^ENV\\s+([A-Za-z_][A-Za-z0-9_]*)=(\\S+)\\s*$", Pattern.MULTILINE);
    private static final Pattern ARGUMENT = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    private ImageEntrypoint() {
    }

    /** The arguments between {@code java} and {@code -jar}. */
    static List<String> jvmOptions(Path dockerfile) throws IOException {
        Matcher m = ENTRYPOINT.matcher(Files.readString(dockerfile));
        if (!m.find()) {
            throw new IllegalStateException(dockerfile + " has no exec-form ENTRYPOINT");
        }
        List<String> args = new ArrayList<>();
        Matcher a = ARGUMENT.matcher(m.group(1));
        while (a.find()) {
            args.add(a.group(1));
        }
        int jar = args.indexOf("-jar");
        if (args.isEmpty() || !args.getFirst().equals("java") || jar < 0) {
            throw new IllegalStateException(dockerfile + ": the ENTRYPOINT does not run java ... -jar: " + args);
        }
        return List.copyOf(args.subList(1, jar));
    }

    /** The variables the image sets ({@code ENV NAME=VALUE}, one per line). */
    static Map<String, String> environment(Path dockerfile) throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        Matcher m = ENV.matcher(Files.readString(dockerfile));
        while (m.find()) {
            env.put(m.group(1), m.group(2));
        }
        return env;
    }
}
