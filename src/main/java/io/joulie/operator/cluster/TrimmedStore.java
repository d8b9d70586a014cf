package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;

import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * An informer store that keeps whole objects minus what {@code trim} clears: parts the operator never reads (a Node's
 * status). The objects are trimmed in place as the watch delivers them.
 */
final class TrimmedStore<T extends HasMetadata> implements ItemStore<T> {
    private final ItemStore<T> objects = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    private final Consumer<T> trim;

    TrimmedStore(Consumer<T> trim) {
        this.trim = trim;
    }

    @Override
    public String getKey(T obj) {
        return objects.getKey(obj);
    }

    @Override
    public T put(String key, T obj) {
        trim.accept(obj);
        return objects.put(key, obj);
    }

    @Override
    public T remove(String key) {
        return objects.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return objects.keySet();
    }

    @Override
    public Stream<T> values() {
        return objects.values();
    }

    @Override
    public int size() {
        return objects.size();
    }

    @Override
    public T get(String key) {
        return objects.get(key);
    }
}
