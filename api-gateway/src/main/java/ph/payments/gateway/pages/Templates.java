package ph.payments.gateway.pages;

import jakarta.inject.Singleton;
import java.util.Locale;
import java.util.Map;
import org.thymeleaf.TemplateEngine;
import org.thymeleaf.context.Context;
import org.thymeleaf.templatemode.TemplateMode;
import org.thymeleaf.templateresolver.ClassLoaderTemplateResolver;

/**
 * The hosted pages' templates ({@code src/main/resources/pages/*.html}), rendered by Thymeleaf.
 * Templates write values with {@code th:text} and {@code th:attr}-style attributes only, which
 * escape them: no template uses unescaped output ({@code th:utext}), so a merchant's description of
 * {@code <script>} is shown as text.
 */
@Singleton
public class Templates {

  private final TemplateEngine engine = new TemplateEngine();

  public Templates() {
    ClassLoaderTemplateResolver resolver = new ClassLoaderTemplateResolver();
    resolver.setPrefix("pages/");
    resolver.setSuffix(".html");
    resolver.setTemplateMode(TemplateMode.HTML);
    resolver.setCharacterEncoding("UTF-8");
    resolver.setCacheable(true);
    engine.setTemplateResolver(resolver);
  }

  /** Renders {@code template} with {@code model}. */
  public String render(String template, Map<String, Object> model) {
    Context context = new Context(Locale.ENGLISH);
    context.setVariables(model);
    Object merchant = model.get("merchant");
    if (merchant instanceof String name && !context.containsVariable("initial")) {
      // The merchant's initial, a plain mark beside the name in place of a logo.
      context.setVariable(
          "initial",
          name.isBlank()
              ? ""
              : name.substring(0, name.offsetByCodePoints(0, 1)).toUpperCase(Locale.ROOT));
    }
    return engine.process(template, context);
  }
}
