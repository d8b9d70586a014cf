package io.joulie.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A process's mount table ({@code /proc/<pid>/mountinfo}, proc(5)), with which of its mounts can be reached by a path.
 * A bind mount of a directory with mounts below it ({@code rbind}, what the runtime does for a hostPath) copies them
 * too, and a second mount at the same place stacks on the first: the one below stays in the table but is hidden, and
 * so is everything mounted on it. Read-only here is the mount's own flag (the fourth-last field before the separator),
 * which is what a write through that mount meets ({@code EROFS}), whatever the file system's.
 */
record MountTable(List<Mount> mounts) {
    /** One line: {@code id parent major:minor root mount-point options [optional...] - type source super-options}. */
    record Mount(int id, int parent, String root, String mountPoint, boolean readOnly, String type, String source, String line) {
        boolean atOrBelow(String path) {
            return mountPoint.equals(path) || mountPoint.startsWith(path.endsWith("/") ? path : path + "/");
        }
    }

    static MountTable of(long pid) throws IOException {
        return parse(Files.readString(Path.of("/proc/" + pid + "/mountinfo")));
    }

    static MountTable parse(String mountinfo) {
        List<Mount> mounts = new ArrayList<>();
        for (String line : mountinfo.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(" ");
            int separator = List.of(f).indexOf("-");
            List<String> options = List.of(f[5].split(","));
            mounts.add(new Mount(Integer.parseInt(f[0]), Integer.parseInt(f[1]), unescape(f[3]), unescape(f[4]),
                    options.contains("ro"), f[separator + 1], f[separator + 2], line));
        }
        return new MountTable(List.copyOf(mounts));
    }

    /** mountinfo escapes space, tab, newline and backslash as three octal digits. */
    static String unescape(String field) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).chars().allMatch(d -> d >= '0' && d <= '7')) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * The mounts a path can reach: those on which nothing is stacked (no mount at the same place has it as parent) and
     * whose place a path reaches: the root (whose parent is not in the table), a mount stacked on one whose place is
     * reached, a mount below a visible one.
     */
    List<Mount> visible() {
        Map<Integer, Mount> byId = new HashMap<>();
        mounts.forEach(m -> byId.put(m.id(), m));
        Set<Integer> covered = new HashSet<>();
        for (Mount m : mounts) {
            Mount parent = byId.get(m.parent());
            if (parent != null && parent.mountPoint().equals(m.mountPoint())) {
                covered.add(parent.id());
            }
        }
        Map<Integer, Boolean> memo = new HashMap<>();
        List<Mount> out = new ArrayList<>();
        for (Mount m : mounts) {
            if (visible(m, byId, covered, memo)) {
                out.add(m);
            }
        }
        return out;
    }

    private static boolean visible(Mount m, Map<Integer, Mount> byId, Set<Integer> covered, Map<Integer, Boolean> memo) {
        Boolean known = memo.get(m.id());
        if (known != null) {
            return known;
        }
        boolean result = !covered.contains(m.id()) && anchored(m, byId, covered, memo);
        memo.put(m.id(), result);
        return result;
    }

    /**
     * Whether a path reaches the place {@code m} is mounted at: the root's always; one stacked on its parent (the same
     * place) where its parent's is; one hanging below its parent where the parent itself is visible.
     */
    private static boolean anchored(Mount m, Map<Integer, Mount> byId, Set<Integer> covered, Map<Integer, Boolean> memo) {
        Mount parent = byId.get(m.parent());
        if (parent == null || parent.id() == m.id()) {
            return true;
        }
        return parent.mountPoint().equals(m.mountPoint()) ? anchored(parent, byId, covered, memo) : visible(parent, byId, covered, memo);
    }

    /** The visible mount at exactly {@code path}. */
    Mount at(String path) {
        return visible().stream().filter(m -> m.mountPoint().equals(path)).findFirst()
                .orElseThrow(() -> new AssertionError("no visible mount at " + path + " in\n" + this));
    }

    /** Visible mounts by mount point, in table order. */
    Map<String, Mount> visibleByMountPoint() {
        Map<String, Mount> out = new LinkedHashMap<>();
        visible().forEach(m -> out.put(m.mountPoint(), m));
        return out;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        mounts.forEach(m -> out.append(m.line()).append('\n'));
        return out.toString();
    }
}
