package ph.payments.gateway.embed;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.core.annotation.Nullable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import ph.payments.gateway.embed.tokens.Audience;
import ph.payments.gateway.embed.tokens.Surface;
import ph.payments.gateway.embed.tokens.Tab;
import ph.payments.gateway.web.Fields;
import ph.payments.platform.errors.ApiException;

/**
 * The body of {@code POST /v1/embed_tokens} (SPEC part 2 "EmbedToken", part 8 limits), checked
 * field by field; every problem is one issue of a single 400 {@code invalid_request}.
 *
 * @param scopeField null for an unscoped merchant token
 * @param scopeValue set exactly when {@code scopeField} is
 * @param tabs as asked, or null when omitted ({@link #effectiveTabs()} is what the token carries)
 */
public record EmbedTokenRequest(
    UUID projectUuid,
    Audience audience,
    Surface surface,
    @Nullable ScopeField scopeField,
    @Nullable String scopeValue,
    @Nullable List<Tab> tabs,
    int ttlSeconds) {

  public static final List<String> FIELDS =
      List.of(
          "project_uuid",
          "audience",
          "surface",
          "scope_field",
          "scope_value",
          "tabs",
          "ttl_seconds");

  public static final int SCOPE_VALUE_MAX = 255;
  public static final int TTL_MIN = 60;
  public static final int TTL_MAX = 86_400;
  public static final int TTL_DEFAULT = 1800;

  private static final Pattern UUID_FORM =
      Pattern.compile(
          "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");

  /** How a token is scoped to one customer. */
  public enum ScopeField {
    /** The value is the customer's id ({@code cus_…}). */
    CUSTOMER_ID,
    /**
     * The value is the customer's {@code metadata.external_id}, resolved when the token is made.
     */
    EXTERNAL_ID;

    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public EmbedTokenRequest {
    tabs = tabs == null ? null : List.copyOf(tabs);
  }

  /** The tabs the token carries: those asked for, else the surface's default for the audience. */
  public List<Tab> effectiveTabs() {
    return tabs != null ? tabs : surface.defaultTabs(audience);
  }

  /**
   * @throws ApiException 400 {@code invalid_request} naming every bad field
   */
  public static EmbedTokenRequest from(@Nullable JsonNode json) {
    Fields body = Fields.of(json).allowOnly(FIELDS.toArray(String[]::new));
    String project = body.requiredString("project_uuid", 36, 36);
    if (project != null && !UUID_FORM.matcher(project).matches()) {
      body.issue("project_uuid", "must be a UUID, e.g. 123e4567-e89b-12d3-a456-426614174000");
    }
    Optional<Audience> audience = choice(body, "audience", true, Audience.values());
    Optional<Surface> surface = choice(body, "surface", false, Surface.values());
    Optional<ScopeField> scopeField = choice(body, "scope_field", false, ScopeField.values());
    String scopeValue = body.optionalString("scope_value", 1, SCOPE_VALUE_MAX);
    if (body.has("scope_field") && !body.has("scope_value")) {
      body.issue("scope_value", "is required with scope_field");
    }
    if (body.has("scope_value") && !body.has("scope_field")) {
      body.issue("scope_field", "is required with scope_value");
    }
    if (audience.orElse(null) == Audience.CUSTOMER && !body.has("scope_field")) {
      body.issue("scope_field", "is required for audience customer (with scope_value)");
    }
    List<Tab> tabs = tabs(body, audience.orElse(null));
    Integer ttl = body.optionalInteger("ttl_seconds", TTL_MIN, TTL_MAX);
    body.validate();
    return new EmbedTokenRequest(
        UUID.fromString(project),
        audience.orElseThrow(),
        surface.orElse(Surface.PAYMENTS),
        scopeField.orElse(null),
        scopeValue,
        tabs,
        ttl == null ? TTL_DEFAULT : ttl);
  }

  /** An enum field in its wire form (lower case); empty when absent or refused. */
  private static <E extends Enum<E>> Optional<E> choice(
      Fields body, String name, boolean required, E[] values) {
    if (!body.has(name)) {
      if (required) {
        body.issue(name, "is required");
      }
      return Optional.empty();
    }
    Set<String> allowed = new java.util.LinkedHashSet<>();
    for (E value : values) {
      allowed.add(value.name().toLowerCase(Locale.ROOT));
    }
    String given = body.optionalEnum(name, allowed);
    if (given == null) {
      return Optional.empty();
    }
    for (E value : values) {
      if (value.name().toLowerCase(Locale.ROOT).equals(given)) {
        return Optional.of(value);
      }
    }
    return Optional.empty();
  }

  /** {@code tabs}: a non-empty array of distinct tab names the audience may see, or absent. */
  private static @Nullable List<Tab> tabs(Fields body, @Nullable Audience audience) {
    if (!body.has("tabs")) {
      if (body.isNull("tabs")) {
        body.issue("tabs", "must be an array of tab names, or absent");
      }
      return null;
    }
    Set<String> names =
        java.util.Arrays.stream(Tab.values()).map(Tab::wire).collect(Collectors.toSet());
    Set<String> given = body.optionalStringSet("tabs", names);
    if (given == null) {
      return null;
    }
    if (given.isEmpty()) {
      body.issue("tabs", "must name at least one tab, or be absent");
      return null;
    }
    if (given.size() != body.arraySize("tabs")) {
      body.issue("tabs", "must not name a tab twice");
      return null;
    }
    List<Tab> tabs = new ArrayList<>();
    Set<Tab> refused = new HashSet<>();
    for (String name : given) {
      Tab tab = Tab.fromWire(name).orElseThrow();
      if (audience != null && !audience.allows(tab)) {
        refused.add(tab);
      }
      tabs.add(tab);
    }
    if (!refused.isEmpty()) {
      body.issue(
          "tabs",
          "audience "
              + audience.wire()
              + " may only have "
              + String.join(", ", audience.tabs().stream().map(Tab::wire).toList()));
      return null;
    }
    return tabs;
  }
}
