package dev.ironcore.maintenance.api.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.filter.TokenFilter;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Jackson module: a {@link Salvageable} resource whose JSON does not fit its Java shape is decoded
 * as an object with its metadata plus what the type salvages, marked with the error, logged and
 * counted ({@link DecodeErrors}), instead of failing. One bad object then never fails a list or
 * ends a watch. JSON that is not even syntactically valid still fails (the API server never sends
 * it).
 */
public final class TolerantDecoding extends SimpleModule {
  private static final long serialVersionUID = 1L;

  public TolerantDecoding() {
    super("ironcore-tolerant-decoding");
    setDeserializerModifier(
        new BeanDeserializerModifier() {
          private static final long serialVersionUID = 1L;

          @Override
          public JsonDeserializer<?> modifyDeserializer(
              DeserializationConfig config, BeanDescription desc, JsonDeserializer<?> deser) {
            Class<?> type = desc.getBeanClass();
            return Salvageable.class.isAssignableFrom(type)
                    && HasMetadata.class.isAssignableFrom(type)
                ? new Salvaging(deser, type)
                : deser;
          }
        });
  }

  private static final class Salvaging extends DelegatingDeserializer {
    private static final long serialVersionUID = 1L;
    private final Class<?> type;
    private final TokenFilter kept;

    Salvaging(JsonDeserializer<?> delegate, Class<?> type) {
      this(delegate, type, ((Salvageable) newInstance(type)).keptMembers());
    }

    private Salvaging(JsonDeserializer<?> delegate, Class<?> type, TokenFilter kept) {
      super(delegate);
      this.type = type;
      this.kept = kept;
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> newDelegatee) {
      return new Salvaging(newDelegatee, type, kept);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      // the object's tokens, kept so that a failed decode can be salvaged: a token buffer costs
      // far less than a JSON tree (a 10,000-Machine list decodes about twice as fast)
      // (of the members the type keeps only: the others are skipped without building strings)
      TokenBuffer tokens = ctxt.bufferForInputBuffering(p);
      KeptMembers.copy(p, tokens, kept);
      try (JsonParser buffered = tokens.asParserOnFirstToken()) {
        return _delegatee.deserialize(buffered, ctxt);
      } catch (IOException | RuntimeException e) {
        JsonNode tree;
        try (JsonParser again = tokens.asParserOnFirstToken()) {
          tree = ctxt.readTree(again);
        }
        return salvage(tree, ctxt, e);
      }
    }

    private Object salvage(JsonNode tree, DeserializationContext ctxt, Exception cause) {
      HasMetadata object = (HasMetadata) newInstance(type);
      object.setMetadata(
          metadata(tree.path("metadata"), ((Salvageable) object).metadataClass(), ctxt));
      String error = DecodeErrorMessage.of(cause);
      ((Salvageable) object).salvage(error, tree);
      String ns = object.getMetadata().getNamespace();
      String name = object.getMetadata().getName();
      DecodeErrors.record(kindOf(type), ns == null || ns.isEmpty() ? name : ns + "/" + name, error);
      return object;
    }

    private static Object newInstance(Class<?> type) {
      try {
        return type.getDeclaredConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot create " + type.getName(), e);
      }
    }

    /**
     * {@code Kind.group} of a resource class (e.g. {@code Machine.compute.ironcore.dev}): the same
     * for every version's class, distinct for CAPI's and IronCore's Machine.
     */
    @SuppressWarnings("unchecked")
    static String kindOf(Class<?> type) {
      Class<? extends HasMetadata> resource = (Class<? extends HasMetadata>) type;
      return HasMetadata.getKind(resource) + "." + HasMetadata.getGroup(resource);
    }

    /** The metadata as fabric8 reads it, else the fields our loops need, read by hand. */
    private static ObjectMeta metadata(
        JsonNode meta, Class<? extends ObjectMeta> type, DeserializationContext ctxt) {
      try {
        return ctxt.readTreeAsValue(meta, type);
      } catch (IOException | RuntimeException e) {
        ObjectMeta m = new ObjectMeta();
        m.setName(text(meta, "name"));
        m.setNamespace(text(meta, "namespace"));
        m.setUid(text(meta, "uid"));
        m.setResourceVersion(text(meta, "resourceVersion"));
        m.setDeletionTimestamp(text(meta, "deletionTimestamp"));
        List<String> finalizers = new ArrayList<>();
        meta.path("finalizers").forEach(f -> finalizers.add(f.asText()));
        m.setFinalizers(finalizers);
        return m;
      }
    }

    private static String text(JsonNode node, String field) {
      JsonNode v = node.get(field);
      return v != null && v.isTextual() ? v.asText() : null;
    }
  }
}
