/**
 * The textual forms both applications accept in configuration and resources: Go-style durations
 * ({@code 30s}, {@code 1h30m}) and Kubernetes label selectors ({@code key=value,key in (a,b)}).
 */
package io.joulie.api.text;
