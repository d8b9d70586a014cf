package io.joulie.harness;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The application JavaAppTest starts: prints its environment, serves /q/health, says goodbye on SIGTERM. */
public final class Echo {
    private Echo() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        System.out.println("http=" + System.getenv("QUARKUS_HTTP_PORT") + " management=" + System.getenv("QUARKUS_MANAGEMENT_PORT")
                + " greeting=" + System.getenv("GREETING"));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1",
                Integer.parseInt(System.getenv("QUARKUS_MANAGEMENT_PORT"))), 0);
        server.createContext("/q/health", exchange -> {
            byte[] body = "UP".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("stopping on SIGTERM")));
        Thread.sleep(Long.MAX_VALUE);
    }
}
