package ph.payments.platform.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The platform library is plain Java; Micronaut appears only in the package that wires it in, so
 * the outbox, inbox, ids and money can be reasoned about (and reused) without the framework.
 */
class FrameworkFreeTest {

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("ph.payments.platform", "ph.payments.contracts");

  @Test
  void onlyTheWiringKnowsMicronaut() {
    noClasses()
        .that()
        .resideInAPackage("ph.payments.platform..")
        .and()
        .resideOutsideOfPackage("ph.payments.platform.micronaut..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.micronaut..", "jakarta.inject..")
        .check(CLASSES);
  }

  @Test
  void contractsCarryNoLogic() {
    noClasses()
        .that()
        .resideInAPackage("ph.payments.contracts..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("ph.payments.platform..", "io.micronaut..", "org.apache.kafka..")
        .check(CLASSES);
  }
}
