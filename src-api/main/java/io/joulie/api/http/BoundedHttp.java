package io.joulie.api.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Every outbound HTTP exchange of the agent (TelemetryProfile control and telemetry endpoints): the whole exchange,
 * connection, headers and body, ends within a deadline, and the body is read only up to a size limit. The JDK's
 * request timeout stops counting once the headers arrive, and a body read whole into memory has no limit: an
 * endpoint that drips its body, or sends a huge one, would otherwise hold the agent's only worker or run it out of
 * memory. An exchange past its deadline, or whose body grows past the limit, is cancelled (the connection closes).
 */
public final class BoundedHttp {
    /** The largest answer body read (64 KiB); telemetry and control answers are a few hundred bytes. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    /** An answer: its status and its body (UTF-8), at most the limit. */
    public record Answer(int status, String body) {
        public boolean ok() {
            return status / 100 == 2;
        }
    }

    private BoundedHttp() {
    }

    /**
     * Sends {@code request} and reads the answer whole, within {@code deadline} and {@code maxBytes}.
     *
     * @throws HttpTimeoutException no whole answer within the deadline
     * @throws IOException          the connection failed, or the body is larger than {@code maxBytes}
     */
    public static Answer send(HttpClient http, HttpRequest request, Duration deadline, int maxBytes)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(request, info -> limited(maxBytes));
        try {
            HttpResponse<byte[]> response = exchange.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
            return new Answer(response.statusCode(), new String(response.body(), StandardCharsets.UTF_8));
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new HttpTimeoutException("no whole answer within " + deadline.toSeconds() + " s");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(cause.toString(), cause);
        }
    }

    /** The body as bytes, failing (and cancelling the transfer) as soon as it grows past {@code maxBytes}. */
    static HttpResponse.BodySubscriber<byte[]> limited(int maxBytes) {
        return new HttpResponse.BodySubscriber<>() {
            private final CompletableFuture<byte[]> body = new CompletableFuture<>();
            private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            private Flow.Subscription subscription;

            @Override
            public CompletionStage<byte[]> getBody() {
                return body;
            }

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(List<ByteBuffer> buffers) {
                if (body.isDone()) {
                    return;
                }
                for (ByteBuffer buffer : buffers) {
                    if (bytes.size() + buffer.remaining() > maxBytes) {
                        subscription.cancel();
                        body.completeExceptionally(new IOException("answer larger than " + maxBytes + " bytes; not read"));
                        return;
                    }
                    byte[] chunk = new byte[buffer.remaining()];
                    buffer.get(chunk);
                    bytes.writeBytes(chunk);
                }
            }

            @Override
            public void onError(Throwable t) {
                body.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                body.complete(bytes.toByteArray());
            }
        };
    }
}
