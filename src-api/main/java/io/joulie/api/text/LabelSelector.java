package io.joulie.api.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A Kubernetes label selector in its textual form, as {@code kubectl -l} takes it: comma-separated
 * requirements {@code key=value}, {@code key==value}, {@code key!=value}, {@code key}, {@code !key},
 * {@code key in (a,b)}, {@code key notin (a,b)}. The empty selector matches every node. Nodes are matched
 * client-side so that a node which stops matching is seen (and released) rather than vanishing from a
 * filtered watch.
 */
public final class LabelSelector implements Predicate<Map<String, String>> {
    private final String text;
    private final List<Predicate<Map<String, String>>> requirements;
    /** key → value when every requirement is {@code key=value}; empty otherwise. */
    private final java.util.Optional<Map<String, String>> equalities;

    private LabelSelector(String text, List<Predicate<Map<String, String>>> requirements,
                          java.util.Optional<Map<String, String>> equalities) {
        this.text = text;
        this.requirements = requirements;
        this.equalities = equalities;
    }

    /** The selector as a pod {@code nodeSelector} map, when it consists only of {@code key=value} requirements. */
    public java.util.Optional<Map<String, String>> asEqualityMap() {
        return equalities;
    }

    public static LabelSelector parse(String text) {
        String t = text == null ? "" : text.trim();
        List<Predicate<Map<String, String>>> reqs = new ArrayList<>();
        Map<String, String> equalities = new java.util.LinkedHashMap<>();
        boolean onlyEqualities = true;
        for (String part : split(t)) {
            String r = part.trim();
            reqs.add(requirement(r));
            var eq = java.util.regex.Pattern.compile("^([^!=\\s]+)\\s*==?\\s*([^=\\s]*)$").matcher(r);
            if (eq.matches()) {
                equalities.put(eq.group(1), eq.group(2));
            } else {
                onlyEqualities = false;
            }
        }
        return new LabelSelector(t, List.copyOf(reqs),
                onlyEqualities ? java.util.Optional.of(Map.copyOf(equalities)) : java.util.Optional.empty());
    }

    @Override
    public boolean test(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (Predicate<Map<String, String>> r : requirements) {
            if (!r.test(l)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return text;
    }

    private static List<String> split(String t) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(t.substring(start, i));
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException("unbalanced parentheses");
        }
        if (!t.isEmpty()) {
            parts.add(t.substring(start));
        }
        return parts;
    }

    private static Predicate<Map<String, String>> requirement(String r) {
        if (r.isEmpty()) {
            throw new IllegalArgumentException("empty requirement");
        }
        var set = java.util.regex.Pattern.compile("^(\\S+)\\s+(in|notin)\\s*\\(([^)]*)\\)$").matcher(r);
        if (set.matches()) {
            String key = key(set.group(1));
            Set<String> values = new java.util.HashSet<>();
            for (String v : set.group(3).split(",")) {
                values.add(value(v.trim()));
            }
            return set.group(2).equals("in")
                    ? l -> l.containsKey(key) && values.contains(l.get(key))
                    : l -> !l.containsKey(key) || !values.contains(l.get(key));
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

    private static final java.util.regex.Pattern KEY =
            java.util.regex.Pattern.compile("^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
    private static final java.util.regex.Pattern VALUE =
            java.util.regex.Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$");

    /** Whether {@code key} is a valid label key ({@code [prefix/]name}). */
    public static boolean isValidKey(String key) {
        return key != null && KEY.matcher(key).matches();
    }

    /** Whether {@code value} is a valid, non-empty label value (at most 63 characters). */
    public static boolean isValidValue(String value) {
        return value != null && !value.isEmpty() && value.length() <= 63 && VALUE.matcher(value).matches();
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
