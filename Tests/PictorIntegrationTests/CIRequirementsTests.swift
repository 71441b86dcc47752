import PictorTestSupport
import Testing

/// In CI (`CI=true`), every server, tool and file the suite's tests are enabled by must be
/// there: a failed install fails the run by name instead of skipping the tests that need it.
@Suite struct CIRequirementsTests {
    @Test(.enabled(if: TestRequirements.isCI, "only in CI (CI=true)"))
    func everyRequirementIsMetInCI() {
        for requirement in TestRequirements.missing {
            Issue.record("CI: \(requirement.name) is missing (\(requirement.hint)); the tests that need it would be skipped")
        }
    }

    /// The list itself, wherever the suite runs: names are unique and each is checkable.
    @Test func theRequirementsAreNamedOnce() {
        let names = TestRequirements.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.contains("redis-server") && names.contains("nginx"))
        _ = TestRequirements.all.map { $0.isMet() }
    }
}
