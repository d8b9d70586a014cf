package io.joulie.agent.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * POOL_NODE_SELECTOR: equality-based label selector requirements separated by commas, matched client-side
 * ({@code key=value}, {@code key==value}, {@code key!=value}, {@code key}, {@code !key}). Empty matches every node.
 */
public final class NodeSelector implements Predicate<Map<String, String>> {
    private static final Pattern KEY =
            Pattern.compile("^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
    private static final Pattern VALUE = Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$");

    private final String text;
    private final List<Predicate<Map<String, String>>> requirements;

    private NodeSelector(String text, List<Predicate<Map<String, String>>> requirements) {
        this.text = text;
        this.requirements = requirements;
    }

    /** @throws IllegalArgumentException naming the bad requirement */
    public static NodeSelector parse(String text) {
        String t = text == null ? "" : text.trim();
        List<Predicate<Map<String, String>>> reqs = new ArrayList<>();
        if (!t.isEmpty()) {
            for (String part : t.split(",", -1)) {
                reqs.add(requirement(part.trim()));
            }
        }
        return new NodeSelector(t, List.copyOf(reqs));
    }

    @Override
    public boolean test(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        return requirements.stream().allMatch(r -> r.test(l));
    }

    @Override
    public String toString() {
        return text;
    }

    private static Predicate<Map<String, String>> requirement(String r) {
        if (r.isEmpty()) {
            throw new IllegalArgumentException("empty requirement");
        }
        int ne = r.indexOf("!=");
        if (ne > 0) {
            String key = key(r.substring(0, ne));
            String value = value(r.substring(ne + 2));
            return l -> !value.equals(l.get(key));
        }
        int eq = r.indexOf('=');
        if (eq > 0) {
            String key = key(r.substring(0, eq));
            String value = value(r.substring(r.startsWith("==", eq) ? eq + 2 : eq + 1));
            return l -> value.equals(l.get(key));
        }
        if (r.startsWith("!")) {
            String key = key(r.substring(1));
            return l -> !l.containsKey(key);
        }
        String key = key(r);
        return l -> l.containsKey(key);
    }

    private static String key(String k) {
        String key = k.trim();
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("'" + key + "' is not a valid label key");
        }
        return key;
    }

    private static String value(String v) {
        String value = v.trim();
        if (!VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a valid label value");
        }
        return value;
    }
}
