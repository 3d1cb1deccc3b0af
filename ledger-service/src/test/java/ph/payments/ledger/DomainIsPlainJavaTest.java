package ph.payments.ledger;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The ledger's domain packages (accounts, postings, posting rules, the hold table) are plain Java:
 * no Micronaut, no JDBC, no JSON. They are what the property test's model is checked against, and
 * they must be readable without the framework.
 */
class DomainIsPlainJavaTest {

  @Test
  void domainPackagesDependOnNoFrameworkJdbcOrJson() {
    noClasses()
        .that()
        .resideInAPackage("ph.payments.ledger..domain..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "jakarta..",
            "java.sql..",
            "javax.sql..",
            "com.fasterxml..",
            "org.apache.kafka..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("ph.payments.ledger"));
  }
}
