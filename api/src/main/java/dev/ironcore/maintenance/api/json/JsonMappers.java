package dev.ironcore.maintenance.api.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.ironcore.maintenance.api.client.KubeHttpClientFactory;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.concurrent.Executors;

/**
 * The one place that builds JSON parsers and mappers for both processes (webhook server, controller
 * and the fabric8 client's serialization). Every mapper reads what the API server stores: Jackson's
 * defaults (nesting depth 500 read / 1,000 write, numbers of 1,000 characters, names of 50,000) are
 * far below what the API server accepts, so a legal object would be "not valid JSON" to us.
 *
 * <p>Limits, each at least the API server's own:
 *
 * <ul>
 *   <li>nesting depth {@value #MAX_NESTING_DEPTH}: the API server's JSON decoder stops at 10,000
 *       levels; the extra levels cover the envelope around an object (AdmissionReview {@code
 *       request.object}, ConversionReview {@code request.objects[i]}, a watch event's {@code
 *       object}, a list's {@code items[i]});
 *   <li>string, number and field-name length {@value #MAX_VALUE_BYTES} bytes: the webhook body cap
 *       is 7 MiB and the API server's request limit 3 MiB, so no single value of a stored object
 *       can be longer;
 *   <li>no document length limit: a LIST response or a watch stream holds many objects and the API
 *       server does not bound it (500 large Machines exceed 8 MiB); the webhook server bounds its
 *       request bodies in the HTTP layer instead.
 * </ul>
 *
 * The same depth applies when writing, so whatever we read we can write back.
 */
public final class JsonMappers {
  /** Largest nesting depth read or written: the API server's 10,000 plus envelope levels. */
  public static final int MAX_NESTING_DEPTH = 10_000 + 64;

  /** Largest string, number or field name in characters: 8 MiB. */
  public static final int MAX_VALUE_BYTES = 8 * 1024 * 1024;

  private static final JsonFactory FACTORY = factory(MAX_NESTING_DEPTH);
  private static final ObjectMapper SHARED = JsonMapper.builder(FACTORY).build();

  private JsonMappers() {}

  /** Read limits of every parser we create (see the class comment). */
  public static StreamReadConstraints readConstraints() {
    return readConstraints(MAX_NESTING_DEPTH);
  }

  private static StreamReadConstraints readConstraints(int maxDepth) {
    return StreamReadConstraints.builder()
        .maxNestingDepth(maxDepth)
        .maxDocumentLength(-1L) // unlimited (see the class comment)
        .maxStringLength(MAX_VALUE_BYTES)
        .maxNumberLength(MAX_VALUE_BYTES)
        .maxNameLength(MAX_VALUE_BYTES)
        .build();
  }

  /** Write limits of every generator we create: the read depth, so what we read we can write. */
  public static StreamWriteConstraints writeConstraints() {
    return StreamWriteConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build();
  }

  private static JsonFactory factory(int maxDepth) {
    return JsonFactory.builder()
        .streamReadConstraints(readConstraints(maxDepth))
        .streamWriteConstraints(
            StreamWriteConstraints.builder().maxNestingDepth(Math.max(maxDepth, 1)).build())
        .build();
  }

  /** A streaming JSON factory with our limits (for token-level reading). */
  public static JsonFactory jsonFactory() {
    return FACTORY;
  }

  /**
   * One shared, thread-safe mapper with our limits, for trees and plain conversion. Do not
   * reconfigure it.
   */
  public static ObjectMapper shared() {
    return SHARED;
  }

  /**
   * A new mapper with our limits and {@link TolerantDecoding} (a {@link Salvageable} resource that
   * does not fit its Java shape is kept, marked and counted), free to be configured further.
   */
  public static ObjectMapper create() {
    return JsonMapper.builder(factory(MAX_NESTING_DEPTH)).addModule(new TolerantDecoding()).build();
  }

  /**
   * A fabric8 serialization on a mapper with our limits; fabric8 adds its own modules to it.
   *
   * @see #client(Config)
   */
  public static KubernetesSerialization kubernetesSerialization() {
    return new KubernetesSerialization(create(), true);
  }

  /**
   * As {@link #kubernetesSerialization()}, but reading at most {@code maxDepth} levels: for tests
   * that need an object this process cannot decode (the API server stores up to 10,000 levels).
   */
  public static KubernetesSerialization kubernetesSerialization(int maxDepth) {
    return new KubernetesSerialization(
        JsonMapper.builder(factory(maxDepth)).addModule(new TolerantDecoding()).build(), true);
  }

  /**
   * A fabric8 client builder whose serialization uses our limits, on the JDK's HTTP client offering
   * ChaCha20-Poly1305 first ({@link KubeHttpClientFactory}); every client of both processes is
   * built from here.
   */
  public static KubernetesClientBuilder clientBuilder() {
    return new KubernetesClientBuilder()
        .withHttpClientFactory(new KubeHttpClientFactory())
        .withKubernetesSerialization(kubernetesSerialization())
        .withTaskExecutor(Executors.newCachedThreadPool(DeepStacks.threadFactory("kube-client")));
  }

  /** A client for {@code config} built by {@link #clientBuilder()}. */
  public static KubernetesClient client(Config config) {
    return clientBuilder().withConfig(config).build();
  }
}
