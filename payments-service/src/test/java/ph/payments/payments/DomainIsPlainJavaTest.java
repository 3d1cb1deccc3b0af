package ph.payments.payments;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The domain packages of payments, refunds and payouts are plain Java: no Micronaut, no JDBC, no
 * HTTP. (Jackson trees are allowed: metadata and destinations are free-form JSON.)
 */
class DomainIsPlainJavaTest {

  @Test
  void domainPackagesNeedNoFrameworkAndNoDatabase() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "ph.payments.payments.payments.domain..",
            "ph.payments.payments.refunds.domain..",
            "ph.payments.payments.payouts.domain..",
            "ph.payments.payments.customers.domain..",
            "ph.payments.payments.products.domain..",
            "ph.payments.payments.links.domain..",
            "ph.payments.payments.staticqrs.domain..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.micronaut..", "jakarta..", "java.sql..", "java.net.http..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("ph.payments.payments"));
  }
}
