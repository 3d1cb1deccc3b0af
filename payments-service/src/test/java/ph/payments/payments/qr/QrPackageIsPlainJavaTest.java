package ph.payments.payments.qr;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The QR codec is string work that use cases, provider adapters and tests call directly; it must
 * not pull in Micronaut, JDBC or anything else that would need a context or a database.
 */
class QrPackageIsPlainJavaTest {

  @Test
  void dependsOnTheJdkAndItselfOnly() {
    classes()
        .that()
        .resideInAPackage("ph.payments.payments.qr..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "ph.payments.payments.qr..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("ph.payments.payments.qr"));
  }
}
