package io.joulie.e2e;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (or a Grafana {@code label_values(…)} variable query) refers to.
 * A small scanner, not a parser: it drops strings, label matchers ({@code {…}}), range and subquery brackets
 * ({@code […]}), numbers and durations, Grafana variables ({@code $node}), the label lists of
 * {@code by/without/on/ignoring/group_left/group_right}, function and aggregation names, and keywords. What
 * is left are the metric names.
 */
final class PromQl {
    /** Words that are PromQL operators, modifiers or literals, never metric names. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan",
            "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
            "quantile", "limitk", "limit_ratio");
    /** Modifiers followed by an optional parenthesized list of label names. */
    private static final Set<String> LABEL_LISTS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
    /** Grafana's {@code label_values(metric_or_selector, label)}: the label is not a metric. */
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*\\)\\s*$");

    private PromQl() {
    }

    static Set<String> metricNames(String expr) {
        Matcher lv = LABEL_VALUES.matcher(expr);
        String e = lv.matches() ? lv.group(1) : expr;
        Set<String> names = new LinkedHashSet<>();
        int i = 0;
        while (i < e.length()) {
            char c = e.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = skipString(e, i);
            } else if (c == '{') {
                i = skipBlock(e, i, '{', '}');
            } else if (c == '[') {
                i = skipBlock(e, i, '[', ']');
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < e.length() && Character.isDigit(e.charAt(i + 1)))) {
                i = skipWord(e, i + 1); // 0.99, 5m, 1e3, 0x1f
            } else if (c == '$') {
                i = skipWord(e, i + 1); // a Grafana variable
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                int end = skipWord(e, i);
                String word = e.substring(i, end);
                int next = skipSpaces(e, end);
                boolean call = next < e.length() && e.charAt(next) == '(';
                if (LABEL_LISTS.contains(word)) {
                    i = call ? skipBlock(e, next, '(', ')') : end;
                    continue;
                }
                if (!call && !KEYWORDS.contains(word)) {
                    names.add(word);
                }
                i = end;
            } else {
                i++;
            }
        }
        return names;
    }

    private static int skipWord(String e, int i) {
        while (i < e.length() && (Character.isLetterOrDigit(e.charAt(i)) || e.charAt(i) == '_' || e.charAt(i) == ':' || e.charAt(i) == '.')) {
            i++;
        }
        return i;
    }

    private static int skipSpaces(String e, int i) {
        while (i < e.length() && Character.isWhitespace(e.charAt(i))) {
            i++;
        }
        return i;
    }

    /** The index after the closing quote; backslash escapes apply except in backtick strings. */
    private static int skipString(String e, int start) {
        char quote = e.charAt(start);
        for (int i = start + 1; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c == '\\' && quote != '`') {
                i++;
            } else if (c == quote) {
                return i + 1;
            }
        }
        throw new IllegalArgumentException("unterminated string at " + start + " in: " + e);
    }

    /** The index after the bracket that closes the one at {@code start}; strings inside are skipped. */
    private static int skipBlock(String e, int start, char open, char close) {
        int depth = 0;
        int i = start;
        while (i < e.length()) {
            char c = e.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = skipString(e, i);
                continue;
            }
            if (c == open) {
                depth++;
            } else if (c == close && --depth == 0) {
                return i + 1;
            }
            i++;
        }
        throw new IllegalArgumentException("unbalanced '" + open + "' at " + start + " in: " + e);
    }
}
