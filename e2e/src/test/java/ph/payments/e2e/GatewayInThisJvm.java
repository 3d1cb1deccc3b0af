package ph.payments.e2e;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * api-gateway inside the test's JVM, so that a test can move its {@link Clock} (the gateway takes
 * time only from its {@code Clock} bean, and {@code PlatformFactory}'s default steps aside for one
 * given here). It runs the jar {@code bin/run} runs ({@code api-gateway/target/api-gateway.jar} and
 * its {@code lib/}) in a class loader of its own whose parent is the platform loader: none of the
 * test's classes or library versions mix with the gateway's, only JDK types such as {@code Clock}
 * cross. Micronaut is driven by reflection for the same reason.
 *
 * <p>Configuration is the environment {@code bin/run} would have started it with ({@code
 * RUN_SERVICES} without api-gateway makes it write {@code $RUN_DIR/env/api-gateway.env}), given as
 * properties, which Micronaut resolves for the {@code ${GATEWAY_PORT}}-style placeholders of
 * application.yml as it resolves environment variables. Environment deduction is off, so the
 * gateway does not take the JUnit call stack for a {@code test} environment: it runs as deployed.
 */
final class GatewayInThisJvm implements AutoCloseable {

  private final URLClassLoader loader;
  private final AutoCloseable context;
  private boolean closed;

  private GatewayInThisJvm(URLClassLoader loader, AutoCloseable context) {
    this.loader = loader;
    this.context = context;
  }

  /** Starts it and returns once its HTTP server listens; throws when it cannot start. */
  static GatewayInThisJvm start(Path repo, Path environmentFile, Clock clock) throws Exception {
    Map<String, Object> environment = new LinkedHashMap<>(readEnvironment(environmentFile));
    // DriverManager loads its drivers once, through the context loader of its first caller: make
    // that this test's loader, or the test's own JDBC calls find only the gateway's driver, which
    // DriverManager then hides from them ("No suitable driver").
    java.sql.DriverManager.getDrivers();
    URLClassLoader loader =
        new URLClassLoader("api-gateway", classpath(repo), ClassLoader.getPlatformClassLoader());
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    // Threads the gateway starts now (Netty, Kafka consumers, schedulers) inherit this loader:
    // libraries that look classes up through the context loader find the gateway's own.
    thread.setContextClassLoader(loader);
    try {
      Class<?> builderType = loader.loadClass("io.micronaut.context.ApplicationContextBuilder");
      Object builder =
          loader
              .loadClass("io.micronaut.context.ApplicationContext")
              .getMethod("builder")
              .invoke(null);
      call(builderType, builder, "classLoader", ClassLoader.class, loader);
      call(
          builderType,
          builder,
          "mainClass",
          Class.class,
          loader.loadClass("ph.payments.gateway.Application"));
      call(builderType, builder, "deduceEnvironment", Boolean.class, Boolean.FALSE);
      call(builderType, builder, "properties", Map.class, environment);
      call(builderType, builder, "singletons", Object[].class, (Object) new Object[] {clock});
      // ApplicationContextBuilder#start, not Micronaut#start: the latter calls System.exit when
      // start-up fails outside a test environment, which would end the test JVM.
      AutoCloseable context = (AutoCloseable) builderType.getMethod("start").invoke(builder);
      try {
        Class<?> embedded = loader.loadClass("io.micronaut.runtime.EmbeddedApplication");
        Object application =
            loader
                .loadClass("io.micronaut.context.BeanLocator")
                .getMethod("getBean", Class.class)
                .invoke(context, embedded);
        embedded.getMethod("start").invoke(application);
      } catch (ReflectiveOperationException | RuntimeException e) {
        context.close();
        throw e;
      }
      return new GatewayInThisJvm(loader, context);
    } catch (InvocationTargetException e) {
      loader.close();
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (Exception | Error e) {
      loader.close();
      throw e;
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** Stops the gateway (HTTP server, consumers, relay, pool) and releases its classes. */
  @Override
  public synchronized void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    try {
      context.close();
    } finally {
      loader.close();
    }
  }

  private static void call(
      Class<?> type, Object target, String method, Class<?> parameter, Object argument)
      throws ReflectiveOperationException {
    Method m = type.getMethod(method, parameter);
    m.invoke(target, argument);
  }

  private static URL[] classpath(Path repo) throws IOException {
    Path target = repo.resolve("api-gateway/target");
    Path jar = target.resolve("api-gateway.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build with mvn -pl e2e -am verify");
    }
    List<URL> urls = new ArrayList<>();
    urls.add(url(jar));
    try (Stream<Path> lib = Files.list(target.resolve("lib"))) {
      for (Path path : lib.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
        urls.add(url(path));
      }
    }
    return urls.toArray(URL[]::new);
  }

  private static URL url(Path path) {
    try {
      return path.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code env -0} output: NAME=value entries separated by NUL (a value may hold a newline). */
  static Map<String, String> readEnvironment(Path file) throws IOException {
    Map<String, String> environment = new LinkedHashMap<>();
    for (String entry : Files.readString(file, StandardCharsets.UTF_8).split("\0")) {
      int equals = entry.indexOf('=');
      if (equals > 0) {
        environment.put(entry.substring(0, equals), entry.substring(equals + 1));
      }
    }
    return environment;
  }
}
