package io.joulie.e2e.cluster;

import io.joulie.e2e.image.OciArchive;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The real node's sandbox image: {@code real-node/pause.c} compiled statically with gcc, in a one-layer OCI image
 * archive (image layout in a tar) that {@code ctr images import} names after its {@code io.containerd.image.name}
 * annotation. No registry is reachable, so the image Kubernetes usually pulls for every Pod is made here.
 */
final class PauseImage {
    private PauseImage() {
    }

    /** Builds the archive in {@code dir} and returns its path. */
    static Path build(Path dir, String name) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path source = dir.resolve("pause.c");
        try (InputStream in = Objects.requireNonNull(PauseImage.class.getResourceAsStream("/real-node/pause.c"), "real-node/pause.c")) {
            Files.write(source, in.readAllBytes());
        }
        Path binary = dir.resolve("pause");
        Process gcc = new ProcessBuilder("gcc", "-static", "-Os", "-s", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (gcc.waitFor() != 0) {
            throw new IOException("gcc could not build the sandbox's pause (a static libc is in libc6-dev): " + out);
        }
        byte[] layer = tar(Map.of("pause", new Entry(Files.readAllBytes(binary), 0755)));
        String layerDigest = sha256(layer);
        byte[] config = """
                {"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"],"User":"65535:65535"},\
                "rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}""".formatted(layerDigest).getBytes(StandardCharsets.UTF_8);
        byte[] manifest = """
                {"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},\
                "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}"""
                .formatted(sha256(config), config.length, layerDigest, layer.length).getBytes(StandardCharsets.UTF_8);
        String tag = name.substring(name.lastIndexOf(':') + 1);
        byte[] index = """
                {"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[\
                {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,\
                "platform":{"architecture":"amd64","os":"linux"},\
                "annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}"""
                .formatted(sha256(manifest), manifest.length, name, tag).getBytes(StandardCharsets.UTF_8);
        Map<String, Entry> layout = new LinkedHashMap<>();
        layout.put("oci-layout", new Entry("{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8), 0644));
        layout.put("index.json", new Entry(index, 0644));
        layout.put("blobs/sha256/" + sha256(layer), new Entry(layer, 0644));
        layout.put("blobs/sha256/" + sha256(config), new Entry(config, 0644));
        layout.put("blobs/sha256/" + sha256(manifest), new Entry(manifest, 0644));
        Path archive = dir.resolve("pause-image.tar");
        Files.write(archive, tar(layout));
        return archive;
    }

    record Entry(byte[] content, int mode) {
    }

    /** A ustar archive of regular files (names under 100 bytes), owned by root, dated 1970. */
    static byte[] tar(Map<String, Entry> files) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, Entry> f : files.entrySet()) {
            byte[] header = new byte[512];
            put(header, 0, f.getKey(), 100);
            put(header, 100, octal(f.getValue().mode(), 7), 8);
            put(header, 108, octal(0, 7), 8);
            put(header, 116, octal(0, 7), 8);
            put(header, 124, octal(f.getValue().content().length, 11), 12);
            put(header, 136, octal(0, 11), 12);
            java.util.Arrays.fill(header, 148, 156, (byte) ' ');
            header[156] = '0';
            put(header, 257, "ustar", 6);
            put(header, 263, "00", 2);
            int sum = 0;
            for (byte b : header) {
                sum += b & 0xff;
            }
            put(header, 148, octal(sum, 6), 7);
            out.writeBytes(header);
            out.writeBytes(f.getValue().content());
            out.writeBytes(new byte[(512 - f.getValue().content().length % 512) % 512]);
        }
        out.writeBytes(new byte[1024]);
        return out.toByteArray();
    }

    private static String octal(long value, int digits) {
        return String.format("%0" + digits + "o", value);
    }

    private static void put(byte[] header, int offset, String value, int length) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length > length) {
            throw new IllegalArgumentException(value + " does not fit in " + length + " bytes of a tar header");
        }
        System.arraycopy(bytes, 0, header, offset, bytes.length);
    }

    private static String sha256(byte[] bytes) {
        return OciArchive.sha256(bytes).substring("sha256:".length());
    }
}
