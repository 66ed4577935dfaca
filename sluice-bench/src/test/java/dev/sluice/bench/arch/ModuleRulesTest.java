package dev.sluice.bench.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.LocationProvider;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The module rules of ARCHITECTURE.md, checked on every module's compiled main classes
 * ({@code <module>/target/classes}; a class belongs to the module whose directory it was read from,
 * so the package {@code dev.sluice.edge}, split across {@code sluice-edge-core} and {@code sluice-edge},
 * is no trouble).
 */
@AnalyzeClasses(locations = ModuleRulesTest.Reactor.class)
class ModuleRulesTest {

    /**
     * The "depends on" column of ARCHITECTURE.md's module table, Sluice modules only: each module may
     * use the classes of these modules and of what they depend on in turn.
     */
    static final Map<String, Set<String>> DEPENDS_ON = table(
            "sluice-config", "",
            "sluice-wire", "",
            "sluice-limiter", "sluice-wire sluice-config",
            "sluice-client", "sluice-wire",
            "sluice-redis", "sluice-limiter sluice-client",
            "sluice-edge-core", "sluice-limiter sluice-wire",
            "sluice-edge", "sluice-edge-core",
            "sluice-keys", "sluice-edge-core sluice-config sluice-redis",
            "sluice-delivery", "sluice-wire sluice-config",
            "sluice-sim", "sluice-client sluice-limiter",
            "sluice-examples", "sluice-edge sluice-client",
            "sluice-okhttp", "sluice-client",
            "sluice-httpclient5", "sluice-client",
            "sluice-spring-boot-autoconfigure", "sluice-edge-core sluice-client",
            "sluice-cli", "sluice-wire sluice-limiter sluice-redis sluice-client sluice-edge sluice-keys"
                    + " sluice-delivery sluice-sim sluice-examples");

    @ArchTest
    static final ArchRule the_wire_knows_no_limiter = noClasses()
            .that(inModule("sluice-wire"))
            .should().dependOnClassesThat().resideInAnyPackage("dev.sluice.limiter..", "dev.sluice.client..",
                    "dev.sluice.edge..", "dev.sluice.redis..", "dev.sluice.delivery..")
            .because("the wire format is shared by the edge that writes it and any client that reads it:"
                    + " it knows no limiter algorithm (ARCHITECTURE.md, Modules)");

    @ArchTest
    static final ArchRule the_sdk_knows_no_limiter = noClasses()
            .that().resideInAPackage("dev.sluice.client..")
            .should().dependOnClassesThat().resideInAPackage("dev.sluice.limiter..")
            .because("the SDK reads any server's answer through the wire, not through Sluice's limiter");

    @ArchTest
    static final ArchRule edge_core_has_no_netty = noClasses()
            .that(inModule("sluice-edge-core"))
            .should().dependOnClassesThat().resideInAPackage("io.netty..")
            .because("sluice-edge-core is the edge's decision without a server, shared with the Spring filters");

    @ArchTest
    static final ArchRule the_limiter_has_no_netty = noClasses()
            .that(inModule("sluice-limiter"))
            .should().dependOnClassesThat().resideInAPackage("io.netty..")
            .because("the limiter knows nothing of the server that calls it");

    @ArchTest
    static final ArchRule no_module_uses_another_modules_internals = classes()
            .that(inAnyModule())
            .should(useNoInternalPackageOfAnotherModule())
            .because("an internal package is free to change: only its own module may use it");

    @ArchTest
    static final ArchRule modules_depend_only_on_their_row = classes()
            .that(inAnyModule())
            .should(dependOnlyOnTheModulesOfTheirRow())
            .because("arrows only point down, as the module table of ARCHITECTURE.md draws them");

    /** Every module's main classes, read from its {@code target/classes}. */
    static final class Reactor implements LocationProvider {
        @Override
        public Set<Location> get(Class<?> testClass) {
            Path root = root();
            return DEPENDS_ON.keySet().stream().map(module -> {
                Path classes = root.resolve(module).resolve("target/classes");
                if (!Files.isDirectory(classes.resolve("dev/sluice"))) {
                    throw new IllegalStateException(classes + " holds no classes: compile the reactor"
                            + " first (./mvnw compile, or this module with -am)");
                }
                return Location.of(classes);
            }).collect(Collectors.toSet());
        }

        private static Path root() {
            Path dir = Path.of("").toAbsolutePath();
            for (Path at = dir; at != null; at = at.getParent()) {
                if (Files.isDirectory(at.resolve("sluice-wire")) && Files.exists(at.resolve("pom.xml"))) {
                    return at;
                }
            }
            throw new IllegalStateException("no reactor root above " + dir);
        }
    }

    /** The module a class was read from: the directory above its {@code target/classes}. */
    static Optional<String> moduleOf(JavaClass type) {
        return type.getSource().map(source -> source.getUri().toString()).flatMap(uri -> {
            int at = uri.indexOf("/target/classes/");
            if (at < 0) {
                return Optional.empty();
            }
            String module = uri.substring(uri.lastIndexOf('/', at - 1) + 1, at);
            return DEPENDS_ON.containsKey(module) ? Optional.of(module) : Optional.empty();
        });
    }

    static DescribedPredicate<JavaClass> inModule(String module) {
        return DescribedPredicate.describe("are in " + module, type -> moduleOf(type).equals(Optional.of(module)));
    }

    static DescribedPredicate<JavaClass> inAnyModule() {
        return DescribedPredicate.describe("are in a Sluice module", type -> moduleOf(type).isPresent());
    }

    static ArchCondition<JavaClass> useNoInternalPackageOfAnotherModule() {
        return new ArchCondition<>("use no internal package of another module") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                String own = moduleOf(type).orElseThrow();
                for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass();
                    Optional<String> theirs = moduleOf(target);
                    if (theirs.isPresent() && !theirs.get().equals(own)
                            && (target.getPackageName() + ".").contains(".internal.")) {
                        events.add(SimpleConditionEvent.violated(dependency,
                                own + ": " + dependency.getDescription() + " (internal to " + theirs.get() + ")"));
                    }
                }
            }
        };
    }

    static ArchCondition<JavaClass> dependOnlyOnTheModulesOfTheirRow() {
        return new ArchCondition<>("depend only on the modules their row of the table names") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                String own = moduleOf(type).orElseThrow();
                Set<String> allowed = reachable(own);
                for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                    Optional<String> theirs = moduleOf(dependency.getTargetClass());
                    if (theirs.isPresent() && !allowed.contains(theirs.get())) {
                        events.add(SimpleConditionEvent.violated(dependency,
                                own + " -> " + theirs.get() + ": " + dependency.getDescription()));
                    }
                }
            }
        };
    }

    /** {@code module} and every module its row reaches, directly or through another row. */
    static Set<String> reachable(String module) {
        Set<String> seen = new LinkedHashSet<>();
        java.util.ArrayDeque<String> next = new ArrayDeque<>(Set.of(module));
        while (!next.isEmpty()) {
            String at = next.pop();
            if (seen.add(at)) {
                next.addAll(DEPENDS_ON.getOrDefault(at, Set.of()));
            }
        }
        return seen;
    }

    private static Map<String, Set<String>> table(String... rows) {
        Map<String, Set<String>> table = new LinkedHashMap<>();
        for (int i = 0; i < rows.length; i += 2) {
            table.put(rows[i], rows[i + 1].isBlank() ? Set.of() : Set.of(rows[i + 1].split(" ")));
        }
        return table;
    }
}
