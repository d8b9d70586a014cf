package io.joulie.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.DefaultMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Server-side apply for the fabric8 mock API server (crud mode), which answers 415 to it: an apply patch
 * ({@code application/apply-patch+yaml}) becomes a read and a write of the crud store, with the field-manager semantics
 * the tests rely on. The fields a manager applied are its own; a later apply by the same manager removes the ones it no
 * longer names and merges the ones it names (objects field by field, lists and values whole), leaving other managers'
 * fields as they are. On the status subresource only {@code status} is applied, elsewhere everything but
 * {@code status}; an apply to a missing object creates it. Not emulated: conflicts (every apply forces), list merge
 * keys, {@code managedFields}. What needs those is tested on the real API server (src-e2e).
 *
 * <p>A JSON patch's {@code test} operations are checked as the API server does (the crud store's own patch handler
 * fails on them without an answer): a value that differs is a 422, and nothing is written.
 */
public final class ServerSideApplyDispatcher extends Dispatcher {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String APPLY = "application/apply-patch";
    private static final String JSON_PATCH = "application/json-patch+json";

    private final Dispatcher crud;
    /** Object path → field manager → the leaf paths it applied last. */
    private final Map<String, Map<String, Set<List<String>>>> owned = new HashMap<>();

    public ServerSideApplyDispatcher(Dispatcher crud) {
        this.crud = crud;
    }

    /** Puts the dispatcher in front of {@code server}'s own (the crud store), so that its clients may apply. */
    public static void install(KubernetesMockServer server) {
        try {
            Field field = DefaultMockServer.class.getDeclaredField("server");
            field.setAccessible(true);
            MockWebServer web = (MockWebServer) field.get(server);
            Field dispatcher = MockWebServer.class.getDeclaredField("dispatcher");
            dispatcher.setAccessible(true);
            Dispatcher current = (Dispatcher) dispatcher.get(web);
            if (!(current instanceof ServerSideApplyDispatcher)) {
                web.setDispatcher(new ServerSideApplyDispatcher(current));
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot install server-side apply on the mock server", e);
        }
    }

    /** For {@code @WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)}. */
    public static final class Setup implements Consumer<io.quarkus.test.kubernetes.client.KubernetesServer> {
        @Override
        public void accept(io.quarkus.test.kubernetes.client.KubernetesServer server) {
            install(server.getKubernetesMockServer());
        }
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String type = request.getHeader("Content-Type");
        if (request.method() == HttpMethod.PATCH && type != null && type.startsWith(JSON_PATCH)) {
            try {
                return tested(request);
            } catch (IOException e) {
                return new MockResponse().setResponseCode(400).setBody(status(400, "BadRequest", e.getMessage()));
            }
        }
        if (request.method() != HttpMethod.PATCH || type == null || !type.startsWith(APPLY)) {
            return crud.dispatch(request);
        }
        try {
            return apply(request);
        } catch (IOException e) {
            return new MockResponse().setResponseCode(400).setBody(status(400, "BadRequest", e.getMessage()));
        }
    }

    /** A JSON patch whose {@code test} operations all hold, else a 422 and no write. */
    private synchronized MockResponse tested(RecordedRequest request) throws IOException {
        String body = request.getUtf8Body(); // read once: the request is passed on with a body of its own
        JsonNode ops = JSON.readTree(body);
        String full = request.getPath();
        int q = full.indexOf('?');
        String path = q < 0 ? full : full.substring(0, q);
        JsonNode current = null;
        for (JsonNode op : ops) {
            if (!"test".equals(op.path("op").asText())) {
                continue;
            }
            if (current == null) {
                MockResponse got = crud.dispatch(request(HttpMethod.GET, path, null));
                if (got.code() != 200) {
                    return got;
                }
                current = JSON.readTree(got.getBody().readUtf8());
            }
            JsonNode at = current.at(op.path("path").asText());
            if (at.isMissingNode() || !at.equals(op.path("value"))) {
                return new MockResponse().setResponseCode(422).setBody(status(422, "Invalid", "the test operation at "
                        + op.path("path").asText() + " failed: expected " + op.path("value") + ", found " + at));
            }
        }
        Buffer again = new Buffer();
        again.writeUtf8(body);
        return crud.dispatch(new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                request.getHeaders(), again));
    }

    private synchronized MockResponse apply(RecordedRequest request) throws IOException {
        String full = request.getPath();
        int q = full.indexOf('?');
        String path = q < 0 ? full : full.substring(0, q);
        String manager = q < 0 ? "unknown" : query(full.substring(q + 1)).getOrDefault("fieldManager", "unknown");
        boolean statusOnly = path.endsWith("/status");
        String object = statusOnly ? path.substring(0, path.length() - "/status".length()) : path;
        ObjectNode applied = parse(request.getUtf8Body());
        scope(applied, statusOnly);
        Set<List<String>> leaves = new HashSet<>();
        leaves(applied, new ArrayList<>(), leaves);
        leaves.removeIf(p -> p.getFirst().equals("metadata") && p.size() > 1 && p.get(1).equals("name"));
        String key = object + (statusOnly ? "#status" : "");

        MockResponse got = crud.dispatch(request(HttpMethod.GET, object, null));
        MockResponse written;
        if (got.code() == 404) {
            if (statusOnly) {
                return got;
            }
            written = crud.dispatch(request(HttpMethod.POST, object.substring(0, object.lastIndexOf('/')), applied));
        } else {
            ObjectNode current = (ObjectNode) JSON.readTree(got.getBody().readUtf8());
            Set<List<String>> before = owned.getOrDefault(key, Map.of()).getOrDefault(manager, Set.of());
            for (List<String> gone : before) {
                if (!leaves.contains(gone)) {
                    remove(current, gone);
                }
            }
            merge(current, applied);
            written = crud.dispatch(request(HttpMethod.PUT, path, current));
        }
        if (written.code() < 300) {
            owned.computeIfAbsent(key, k -> new HashMap<>()).put(manager, leaves);
        }
        return written;
    }

    /** Keeps what the endpoint applies: {@code status} on the status subresource, the rest elsewhere. */
    private static void scope(ObjectNode applied, boolean statusOnly) {
        if (statusOnly) {
            applied.retain("apiVersion", "kind", "metadata", "status");
            if (applied.get("metadata") instanceof ObjectNode meta) {
                meta.retain("name", "namespace");
            }
        } else {
            applied.remove("status");
        }
        if (applied.get("metadata") instanceof ObjectNode meta) {
            meta.remove(List.of("resourceVersion", "managedFields", "uid", "generation", "creationTimestamp"));
        }
    }

    /** The body: JSON, as fabric8 sends it, or YAML. */
    private static ObjectNode parse(String body) throws IOException {
        try {
            return (ObjectNode) JSON.readTree(body);
        } catch (IOException e) {
            Object yaml = new io.fabric8.kubernetes.client.utils.KubernetesSerialization().unmarshal(body, Map.class);
            return JSON.valueToTree(yaml);
        }
    }

    private static void leaves(JsonNode node, List<String> path, Set<List<String>> into) {
        if (node instanceof ObjectNode obj && !obj.isEmpty()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = obj.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (path.isEmpty() && (e.getKey().equals("apiVersion") || e.getKey().equals("kind"))) {
                    continue;
                }
                List<String> child = new ArrayList<>(path);
                child.add(e.getKey());
                leaves(e.getValue(), child, into);
            }
        } else if (!path.isEmpty()) {
            into.add(List.copyOf(path));
        }
    }

    private static void remove(ObjectNode root, List<String> path) {
        JsonNode node = root;
        for (int i = 0; i < path.size() - 1; i++) {
            node = node.get(path.get(i));
            if (!(node instanceof ObjectNode)) {
                return;
            }
        }
        ((ObjectNode) node).remove(path.getLast());
    }

    private static void merge(ObjectNode into, ObjectNode from) {
        from.fields().forEachRemaining(e -> {
            if (e.getValue() instanceof ObjectNode child && into.get(e.getKey()) instanceof ObjectNode existing) {
                merge(existing, child);
            } else if (e.getValue().isNull()) {
                into.remove(e.getKey());
            } else {
                into.set(e.getKey(), e.getValue().deepCopy());
            }
        });
    }

    private static RecordedRequest request(HttpMethod method, String path, JsonNode body) throws IOException {
        Headers headers = new Headers.Builder().add("Content-Type", "application/json").build();
        Buffer buffer = new Buffer();
        if (body != null) {
            buffer.writeUtf8(JSON.writeValueAsString(body));
        }
        return new RecordedRequest("HTTP/1.1", method, path, headers, buffer);
    }

    private static Map<String, String> query(String query) {
        Map<String, String> params = new HashMap<>();
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                params.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return params;
    }

    private static String status(int code, String reason, String message) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Failure\",\"code\":" + code + ",\"reason\":\"" + reason
                + "\",\"message\":" + JSON.valueToTree(String.valueOf(message)) + "}";
    }
}
