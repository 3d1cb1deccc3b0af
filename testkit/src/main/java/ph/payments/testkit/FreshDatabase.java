package ph.payments.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;

/**
 * Drops the database {@link TestDatabase#forClass} made for a test class once the class is done.
 *
 * <p>The drop must come after everything else in the class has let go of the database, Micronaut's
 * {@code afterAll} closing its context and connection pool in particular. Doing it directly in
 * {@link #afterAll} would depend on the order the extensions were declared in (JUnit runs {@code
 * afterAll} callbacks in reverse registration order). Instead {@code afterAll} only puts a resource
 * into the class's extension store; JUnit closes that store after <em>all</em> {@code afterAll}
 * callbacks of the class have run, whatever their order.
 */
public final class FreshDatabase implements AfterAllCallback {

  private static final Namespace NAMESPACE = Namespace.create(FreshDatabase.class);

  @Override
  public void afterAll(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    context.getStore(NAMESPACE).put(testClass, new DropOnClose(testClass));
  }

  /**
   * Implements both store-closing contracts: {@code CloseableResource} is what JUnit before 5.13
   * closes, {@code AutoCloseable} what 5.13 and later prefer (they warn about the former alone). A
   * value that is both is closed once.
   */
  @SuppressWarnings("deprecation")
  private record DropOnClose(Class<?> testClass)
      implements ExtensionContext.Store.CloseableResource, AutoCloseable {

    @Override
    public void close() {
      TestDatabase.closeForClass(testClass);
    }
  }
}
