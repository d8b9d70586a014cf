package io.joulie.api.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A Kubernetes label selector in its textual form, as {@code kubectl -l} takes it: comma-separated
 * requirements {@code key=value}, {@code key==value}, {@code key!=value}, {@code key}, {@code !key},
 * {@code key in (a,b)}, {@code key notin (a,b)}. The empty selector matches every node. Nodes are matched
 * client-side so that a node which stops matching is seen (and released) rather than vanishing from a
 * filtered watch.
 */
public final class LabelSelector implements Predicate<Map<String, String>> {
    /** How a requirement tests a label: the operators of Kubernetes label selectors and node selector requirements. */
    public enum Operator {
        /** The label is set to one of the values. */
        In,
        /** The label is absent or set to none of the values. */
        NotIn,
        /** The label is set. */
        Exists,
        /** The label is absent. */
        DoesNotExist
    }

    /**
     * One requirement of a selector, in the structured form of a label selector's {@code matchExpressions} (and of a
     * node selector requirement): {@code key=v} is {@code In [v]}, {@code key!=v} is {@code NotIn [v]}, {@code key} is
     * {@code Exists}, {@code !key} is {@code DoesNotExist}.
     */
    public record Requirement(String key, Operator operator, List<String> values) implements Predicate<Map<String, String>> {
        public Requirement {
            values = List.copyOf(values);
        }

        @Override
        public boolean test(Map<String, String> labels) {
            return switch (operator) {
                case In -> labels.containsKey(key) && values.contains(labels.get(key));
                case NotIn -> !labels.containsKey(key) || !values.contains(labels.get(key));
                case Exists -> labels.containsKey(key);
                case DoesNotExist -> !labels.containsKey(key);
            };
        }
    }

    private final String text;
    private final List<Requirement> requirements;

    private LabelSelector(String text, List<Requirement> requirements) {
        this.text = text;
        this.requirements = requirements;
    }

    /** The requirements, all of which a node must meet. */
    public List<Requirement> requirements() {
        return requirements;
    }

    public static LabelSelector parse(String text) {
        String t = text == null ? "" : text.trim();
        List<Requirement> reqs = new ArrayList<>();
        for (String part : split(t)) {
            reqs.add(requirement(part.trim()));
        }
        return new LabelSelector(t, List.copyOf(reqs));
    }

    @Override
    public boolean test(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (Requirement r : requirements) {
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

    private static Requirement requirement(String r) {
        if (r.isEmpty()) {
            throw new IllegalArgumentException("empty requirement");
        }
        var set = java.util.regex.Pattern.compile("^(\\S+)\\s+(in|notin)\\s*\\(([^)]*)\\)$").matcher(r);
        if (set.matches()) {
            List<String> values = new ArrayList<>();
            for (String v : set.group(3).split(",")) {
                String value = value(v.trim());
                if (!values.contains(value)) {
                    values.add(value);
                }
            }
            return new Requirement(key(set.group(1)), set.group(2).equals("in") ? Operator.In : Operator.NotIn, values);
        }
        int ne = r.indexOf("!=");
        if (ne > 0) {
            return new Requirement(key(r.substring(0, ne)), Operator.NotIn, List.of(value(r.substring(ne + 2))));
        }
        int eq = r.indexOf('=');
        if (eq > 0) {
            return new Requirement(key(r.substring(0, eq)), Operator.In,
                    List.of(value(r.substring(r.startsWith("==", eq) ? eq + 2 : eq + 1))));
        }
        if (r.startsWith("!")) {
            return new Requirement(key(r.substring(1)), Operator.DoesNotExist, List.of());
        }
        return new Requirement(key(r), Operator.Exists, List.of());
    }

    private static final java.util.regex.Pattern KEY =
            java.util.regex.Pattern.compile(Forms.LABEL_KEY);
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
