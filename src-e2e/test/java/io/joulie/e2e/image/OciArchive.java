package io.joulie.e2e.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.zip.GZIPInputStream;

/**
 * An image as the build writes it (Jib's {@code buildTar}): an OCI image layout in a tar archive, {@code oci-layout},
 * {@code index.json} and {@code blobs/sha256/<hex>}. Reads the archive's entries and, on demand, the files of a
 * layer; a small tar reader of its own (ustar with GNU long names and PAX records, what Jib and GNU tar write).
 */
public final class OciArchive {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path path;
    /** Entry name to its bytes; blobs over the size limit given to {@link #read} are left out (their size is kept). */
    private final Map<String, byte[]> entries;
    private final Map<String, Long> sizes;

    private OciArchive(Path path, Map<String, byte[]> entries, Map<String, Long> sizes) {
        this.path = path;
        this.entries = entries;
        this.sizes = sizes;
    }

    /** Every entry of the archive, blobs included. */
    public static OciArchive read(Path tarball) throws IOException {
        return read(tarball, size -> true);
    }

    /** The entries of at most 1 MiB: the index, the manifest and the configuration, not the layers. */
    public static OciArchive readMetadata(Path tarball) throws IOException {
        return read(tarball, size -> size <= 1 << 20);
    }

    private static OciArchive read(Path tarball, LongPredicate keep) throws IOException {
        if (!Files.isRegularFile(tarball)) {
            throw new IllegalStateException(tarball + " is missing: the images are built by `./mvnw -pl src,src-agent -am "
                    + "package` (docs/install.md, \"Building the images\")");
        }
        Map<String, byte[]> entries = new LinkedHashMap<>();
        Map<String, Long> sizes = new LinkedHashMap<>();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(tarball), 1 << 16)) {
            entries(in, (entry, content) -> {
                if (entry.type() == Entry.FILE) {
                    sizes.put(entry.name(), entry.size());
                    if (keep.test(entry.size())) {
                        entries.put(entry.name(), content.readAllBytes());
                    }
                }
            });
        }
        return new OciArchive(tarball, entries, sizes);
    }

    public Path path() {
        return path;
    }

    /** The names of the archive's files. */
    public List<String> names() {
        return List.copyOf(sizes.keySet());
    }

    /** An entry's bytes: {@code index.json}, {@code oci-layout}, {@code blobs/sha256/<hex>}. */
    public byte[] bytes(String name) {
        byte[] content = entries.get(name);
        if (content == null) {
            throw new IllegalStateException(path + " has no entry " + name + (sizes.containsKey(name) ? " read" : ""));
        }
        return content;
    }

    public JsonNode json(String name) throws IOException {
        return JSON.readTree(bytes(name));
    }

    /** The entry name of the blob of a digest ({@code sha256:<hex>}). */
    public static String blob(String digest) {
        if (!digest.startsWith("sha256:")) {
            throw new IllegalArgumentException("not a sha256 digest: " + digest);
        }
        return "blobs/sha256/" + digest.substring("sha256:".length());
    }

    public long size(String name) {
        Long size = sizes.get(name);
        if (size == null) {
            throw new IllegalStateException(path + " has no entry " + name);
        }
        return size;
    }

    public JsonNode index() throws IOException {
        return json("index.json");
    }

    /** The manifest of the index's only image. */
    public JsonNode manifest() throws IOException {
        JsonNode manifests = index().path("manifests");
        if (manifests.size() != 1) {
            throw new IllegalStateException(path + ": the index lists " + manifests.size() + " manifests, not one");
        }
        return json(blob(manifests.get(0).path("digest").asText()));
    }

    /** The image configuration: {@code config.Entrypoint}, {@code config.Env}, {@code config.User}, ... */
    public JsonNode config() throws IOException {
        return json(blob(manifest().path("config").path("digest").asText()));
    }

    /** {@code sha256:<hex>} of bytes. */
    public static String sha256(byte[] bytes) {
        return "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The entries of a gzipped layer blob, in order; returns the digest of the uncompressed tar (its diff_id). */
    public String layer(String digest, Consumer<Entry> each) throws IOException {
        MessageDigest diff = sha256();
        try (InputStream tar = new DigestInputStream(new GZIPInputStream(new ByteArrayInputStream(bytes(blob(digest))),
                1 << 16), diff)) {
            entries(tar, (entry, content) -> each.accept(entry));
            tar.transferTo(OutputStream.nullOutputStream()); // the end-of-archive blocks count too
        }
        return "sha256:" + HexFormat.of().formatHex(diff.digest());
    }

    /** A tar entry: its name without a leading "./" or "/", type, mode bits, size and link target. */
    public record Entry(String name, char type, int mode, long size, String link) {
        public static final char FILE = '0';
        public static final char HARD_LINK = '1';
        public static final char SYMLINK = '2';
        public static final char DIRECTORY = '5';

        public boolean executable() {
            return (mode & 0111) != 0;
        }
    }

    interface EntryReader {
        void accept(Entry entry, InputStream content) throws IOException;
    }

    /** Reads the tar stream entry by entry; {@code content} is the entry's data (the rest is skipped). */
    static void entries(InputStream in, EntryReader each) throws IOException {
        byte[] header = new byte[512];
        Map<String, String> pax = new LinkedHashMap<>();
        String longName = null;
        String longLink = null;
        while (true) {
            if (!readBlock(in, header)) {
                return;
            }
            if (isZero(header)) {
                return; // end of archive
            }
            char type = header[156] == 0 ? Entry.FILE : (char) header[156];
            long size = number(header, 124, 12);
            String name = string(header, 0, 100);
            if (string(header, 257, 5).equals("ustar")) {
                String prefix = string(header, 345, 155);
                if (!prefix.isEmpty()) {
                    name = prefix + "/" + name;
                }
            }
            int mode = (int) number(header, 100, 8);
            String link = string(header, 157, 100);
            BoundedInput content = new BoundedInput(in, size);
            switch (type) {
                case 'x' -> pax.putAll(paxRecords(content.readAllBytes()));
                case 'g' -> content.skipRest(); // global records: none that matter here
                case 'L' -> longName = cString(content.readAllBytes());
                case 'K' -> longLink = cString(content.readAllBytes());
                default -> {
                    if (longName != null) {
                        name = longName;
                    }
                    if (longLink != null) {
                        link = longLink;
                    }
                    name = pax.getOrDefault("path", name);
                    link = pax.getOrDefault("linkpath", link);
                    if (pax.containsKey("size")) {
                        size = Long.parseLong(pax.get("size"));
                        content = new BoundedInput(in, size);
                    }
                    char kind = type == '7' ? Entry.FILE : type;
                    each.accept(new Entry(normalize(name), kind, mode & 07777, size, link), content);
                    pax.clear();
                    longName = null;
                    longLink = null;
                }
            }
            content.skipRest();
            int padding = (int) ((512 - size % 512) % 512);
            if (in.readNBytes(header, 0, padding) != padding) {
                throw new EOFException("truncated tar padding");
            }
        }
    }

    private static String normalize(String name) {
        String n = name;
        while (n.startsWith("./") || n.startsWith("/")) {
            n = n.substring(n.startsWith("./") ? 2 : 1);
        }
        return n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
    }

    private static Map<String, String> paxRecords(byte[] data) {
        Map<String, String> records = new LinkedHashMap<>();
        int i = 0;
        while (i < data.length) {
            int space = indexOf(data, (byte) ' ', i);
            int length = Integer.parseInt(new String(data, i, space - i, StandardCharsets.US_ASCII));
            String record = new String(data, space + 1, i + length - space - 2, StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            records.put(record.substring(0, eq), record.substring(eq + 1));
            i += length;
        }
        return records;
    }

    private static int indexOf(byte[] data, byte b, int from) {
        for (int i = from; i < data.length; i++) {
            if (data[i] == b) {
                return i;
            }
        }
        throw new IllegalStateException("malformed PAX record");
    }

    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int n = in.readNBytes(block, 0, block.length);
        if (n == 0) {
            return false;
        }
        if (n < block.length) {
            throw new EOFException("truncated tar header");
        }
        return true;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static String string(byte[] header, int offset, int length) {
        int end = offset;
        while (end < offset + length && header[end] != 0) {
            end++;
        }
        return new String(header, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static String cString(byte[] data) {
        int end = 0;
        while (end < data.length && data[end] != 0) {
            end++;
        }
        return new String(data, 0, end, StandardCharsets.UTF_8);
    }

    /** An octal number, or a base-256 one when the first byte's high bit is set (GNU, for sizes of 8 GiB and more). */
    private static long number(byte[] header, int offset, int length) {
        if ((header[offset] & 0x80) != 0) {
            long value = header[offset] & 0x7f;
            for (int i = offset + 1; i < offset + length; i++) {
                value = (value << 8) | (header[i] & 0xff);
            }
            return value;
        }
        String digits = string(header, offset, length).trim();
        return digits.isEmpty() ? 0 : Long.parseLong(digits, 8);
    }

    /** The next {@code remaining} bytes of a stream. */
    private static final class BoundedInput extends InputStream {
        private final InputStream in;
        private long remaining;

        BoundedInput(InputStream in, long size) {
            this.in = in;
            this.remaining = size;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = in.read();
            if (b < 0) {
                throw new EOFException("truncated tar entry");
            }
            remaining--;
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = in.read(buffer, offset, (int) Math.min(length, remaining));
            if (n < 0) {
                throw new EOFException("truncated tar entry");
            }
            remaining -= n;
            return n;
        }

        /** Reads past the rest (not {@code skip}: a digest over the stream must see every byte). */
        void skipRest() throws IOException {
            byte[] buffer = new byte[8192];
            while (remaining > 0) {
                int n = read(buffer, 0, (int) Math.min(buffer.length, remaining));
                if (n < 0) {
                    throw new EOFException("truncated tar entry");
                }
            }
        }
    }
}
