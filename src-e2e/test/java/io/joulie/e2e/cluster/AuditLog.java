package io.joulie.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The API server's audit log (JSON lines, one per completed request): who asked what, and the answer. */
public final class AuditLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    private AuditLog() {
    }

    public record Entry(Instant at, String user, String verb, String resource, String subresource, String namespace,
                        String name, int code, String uri, String userAgent, String message) {
        /**
         * A JSON patch refused because its {@code test} operation failed: the operator's label patch decided on a label
         * that has changed since (a precondition doing its work, decision 167), not a refusal by RBAC or admission.
         */
        public boolean failedTest() {
            return code == 422 && "patch".equals(verb) && "the server rejected our request due to an error in our request".equals(message);
        }

        /**
         * A create refused because its kind's CRD is being deleted (OpenShiftIT removes the SCC API under the running
         * operator, decision 194): the API going away, not a refusal by RBAC or admission.
         */
        public boolean crdTerminating() {
            return code == 403 && message != null && message.contains("not allowed while custom resource definition is terminating");
        }

        /** Lease reads and renewals: the cost of leader election, apart from the cost of planning. */
        public boolean lease() {
            return "leases".equals(resource);
        }

        /** A watch stays open; it costs nothing per tick. */
        public boolean watch() {
            return "watch".equals(verb);
        }
    }

    public static String serviceAccount(String namespace, String name) {
        return "system:serviceaccount:" + namespace + ":" + name;
    }

    public static List<Entry> read(Path log) {
        List<Entry> entries = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(log);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).isBlank()) {
                    continue;
                }
                JsonNode e;
                try {
                    e = JSON.readTree(lines.get(i));
                } catch (com.fasterxml.jackson.core.JsonProcessingException partial) {
                    if (i == lines.size() - 1) {
                        break; // the API server is still writing this line
                    }
                    throw partial;
                }
                JsonNode ref = e.path("objectRef");
                entries.add(new Entry(Instant.parse(e.path("stageTimestamp").asText()), e.path("user").path("username").asText(),
                        e.path("verb").asText(), text(ref, "resource"), text(ref, "subresource"), text(ref, "namespace"),
                        text(ref, "name"), e.path("responseStatus").path("code").asInt(), e.path("requestURI").asText(),
                        e.path("userAgent").asText(), e.path("responseStatus").path("message").asText("")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isMissingNode() || v.isNull() ? null : v.asText();
    }
}
