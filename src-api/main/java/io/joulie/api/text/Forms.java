package io.joulie.api.text;

/**
 * The textual forms of the resources' string fields as regular expressions, for the CRD schemas
 * ({@code @Pattern}): the API server then refuses a typo at {@code kubectl apply} instead of the operator
 * reporting it afterwards. Each pattern accepts what the field's parser accepts in its documented form (the
 * tests hold them to the parsers) and leaves the finer checks to the parser: a duration of zero, an unknown time
 * zone name, a host that does not resolve. The syntax is the common subset of RE2 (the API server), Java and
 * ECMA-262 (OpenAPI tools).
 */
public final class Forms {
    /** A Go-style duration ({@code 30s}, {@code 1h30m}, {@code 500ms}, {@code 0}) or an ISO-8601 one ({@code PT1M}): {@link Durations}. */
    public static final String DURATION = "^(0|([0-9]+(\\.[0-9]+)?(ms|s|m|h))+|[Pp]([0-9]*(\\.[0-9]+)?[DdHhMmSsTt])+)$";
    /** A time of day {@code HH:MM}, 00:00 to 23:59. */
    public static final String CLOCK_TIME = "^([01][0-9]|2[0-3]):[0-5][0-9]$";
    private static final String DAY = "([Mm][Oo][Nn]([Dd][Aa][Yy])?|[Tt][Uu][Ee]([Ss][Dd][Aa][Yy])?|[Ww][Ee][Dd]([Nn][Ee][Ss][Dd][Aa][Yy])?"
            + "|[Tt][Hh][Uu]([Rr][Ss][Dd][Aa][Yy])?|[Ff][Rr][Ii]([Dd][Aa][Yy])?|[Ss][Aa][Tt]([Uu][Rr][Dd][Aa][Yy])?"
            + "|[Ss][Uu][Nn]([Dd][Aa][Yy])?)";
    /** A day ({@code Mon}, {@code monday}) or a range of days ({@code Mon-Fri}, {@code Fri-Mon} wraps). */
    public static final String DAY_RANGE = "^" + DAY + "(-" + DAY + ")?$";
    /**
     * A time zone as {@link java.time.ZoneId} reads it: an IANA region ({@code Europe/Berlin},
     * {@code America/Argentina/Buenos_Aires}, {@code Etc/GMT+1}), {@code UTC}, or an offset ({@code +01:00},
     * {@code UTC+1}). Whether the region exists is the operator's check.
     */
    public static final String TIME_ZONE = "^([A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*(:[0-9]{2})?|[+-][0-9]{1,2}(:?[0-9]{2})?)$";
    /** An absolute http(s) URL with a host; {@code {node}} placeholders are allowed anywhere after the scheme. */
    public static final String HTTP_URL = "^https?://[^/\\s?#@]+(/[^\\s]*)?$";
    /** A Kubernetes label key, {@code [prefix/]name}: {@link LabelSelector#isValidKey}. */
    public static final String LABEL_KEY = "^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$";
    /** A Prometheus label name. */
    public static final String PROMETHEUS_LABEL = "^[a-zA-Z_][a-zA-Z0-9_]*$";
    /** A Kubernetes object name that is a DNS subdomain (Nodes, PriorityClasses, Secrets). */
    public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
    /** An absolute file path (a file mounted into a container). */
    public static final String ABSOLUTE_PATH = "^/[^\\s]*$";
    /** An image pull policy. */
    public static final String PULL_POLICY = "^(Always|IfNotPresent|Never)$";

    private Forms() {
    }
}
