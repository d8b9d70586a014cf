package io.joulie.operator.install;

/** For tests in other packages that add and remove the optional kinds' CRDs between tests. */
public final class OptionalCrds {
    private OptionalCrds() {
    }

    /** Forgets what the activation condition found, so that the next reconcile looks at the CRDs again. */
    public static void forgetAll() {
        JoulieDependents.CrdPresent.forgetAll();
    }
}
