/**
 * The textual forms both applications accept in configuration and resources, and the one validator of such text
 * ({@link io.joulie.api.text.Problems}, which names where each bad value was set): Go-style durations
 * ({@code 30s}, {@code 1h30m}) Kubernetes label selectors ({@code key=value,key in (a,b)}), and the patterns the CRD schemas hold these and the
 * other string forms to ({@link io.joulie.api.text.Forms}).
 */
package io.joulie.api.text;
