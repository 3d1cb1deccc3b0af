package ph.payments.ledger;

import io.micronaut.runtime.Micronaut;

/** Entry point of ledger-service. */
public final class Application {

  public static void main(String[] args) {
    Micronaut.build(args).mainClass(Application.class).banner(false).start();
  }

  private Application() {}
}
