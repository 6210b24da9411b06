import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// BGTaskScheduler `register(forTaskWithIdentifier:using:launchHandler:)` and `submit(_:)`: the
/// documented errors, the pending limits and replacement (phone-rules.md, BGTaskScheduler line
/// and correction 4).
@Suite("Scheduled tasks: registration and requests")
struct ScheduledTaskRequestTests {
    @Test(
        "Registration: an undeclared identifier and one registered after the launch ended are refused (typed error, traced); a declared one in didFinishLaunching is registered",
        arguments: [PhoneProfile.ios17, .ios26])
    func registrationRules(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let (log, trace) = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installTaskApp(
                permitted: ["refresh", "late"],
                behaviour: TaskBehaviour(register: ["refresh", "undeclared", "refresh"], registerLate: ["late"]))
            await world.phone.open(app)
            try await world.at(5)
            return (world.log.all, await world.taskTrace(app))
        }
        #expect(log.contains("registration error identifier_not_permitted@0"))
        #expect(log.contains("registration error already_registered@0"))
        #expect(log.contains("registration error after_launch@0"))
        #expect(trace.contains("taskRegistered refresh@0"))
        #expect(trace.contains("taskRegistrationRejected undeclared identifier_not_permitted@0"))
        #expect(trace.contains("taskRegistrationRejected late after_launch@0"))
    }

    @Test(
        "No BGTaskScheduler before iOS 13: register reports the API missing, submit throws .unavailable",
        arguments: [PhoneProfile.ios6, .ios12])
    func unavailableOnOldProfiles(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let (log, trace, error) = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installTaskApp(behaviour: TaskBehaviour(register: ["refresh"]))
            await world.phone.open(app)
            try await world.at(1)
            let error = await Self.submitError(world, app, BGAppRefreshTaskRequest(identifier: "refresh"))
            return (world.log.all, await world.taskTrace(app), error)
        }
        #expect(log.contains("registration error unavailable@0"))
        #expect(error == .unavailable)
        #expect(trace.contains("taskSubmitRejected refresh unavailable@1"))
    }

    @Test(
        "Submit: .notPermitted without the mode or for an undeclared identifier; .unavailable with Background App Refresh off",
        arguments: [PhoneProfile.ios17, .ios26])
    func submitErrors(profile: PhoneProfile) async throws {
        let radio = VirtualRadio()
        let errors = try await radio.simulation.run {
            let world = await PhoneWorld.make(profile, radio: radio)
            let app = await world.installTaskApp(modes: [.fetch], behaviour: TaskBehaviour(register: ["refresh"]))
            await world.phone.open(app)
            try await world.at(1)
            var errors: [BGTaskSchedulerError?] = []
            errors.append(await Self.submitError(world, app, BGProcessingTaskRequest(identifier: "nightly")))
            errors.append(await Self.submitError(world, app, BGAppRefreshTaskRequest(identifier: "other")))
            await world.phone.updateConditions { $0.backgroundAppRefresh = false }
            errors.append(await Self.submitError(world, app, BGAppRefreshTaskRequest(identifier: "refresh")))
            await world.phone.updateConditions { $0.backgroundAppRefresh = true }
            errors.append(await Self.submitError(world, app, BGAppRefreshTaskRequest(identifier: "refresh")))
            return errors
        }
        #expect(errors == [.notPermitted, .notPermitted, .unavailable, nil])
    }

    @Test(
        "Pending limits: the 2nd refresh and the 11th processing request throw .tooManyPendingTaskRequests; resubmitting an identifier replaces it; cancel and cancelAll"
    )
    func pendingLimits() async throws {
        let radio = VirtualRadio()
        let permitted = Set(["refresh", "refresh2"] + (1...11).map { "p\($0)" })
        let (errors, trace, pendingCounts) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installTaskApp(permitted: permitted, behaviour: TaskBehaviour(register: []))
            await world.phone.open(app)
            try await world.at(1)
            var errors: [BGTaskSchedulerError?] = []
            errors.append(await Self.submitError(world, app, BGAppRefreshTaskRequest(identifier: "refresh")))
            errors.append(await Self.submitError(world, app, BGAppRefreshTaskRequest(identifier: "refresh2")))
            // The same identifier again replaces the pending one (no limit error).
            errors.append(
                await Self.submitError(
                    world, app, BGAppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: world.instant(500))))
            for index in 1...11 {
                errors.append(await Self.submitError(world, app, BGProcessingTaskRequest(identifier: "p\(index)")))
            }
            var counts: [Int] = []
            let scheduler = await world.scheduler(app)!
            counts.append(await scheduler.pendingTaskRequests().count)
            await scheduler.cancel(taskRequestWithIdentifier: "p1")
            counts.append(await scheduler.pendingTaskRequests().count)
            let refresh = await scheduler.pendingTaskRequests().first { $0.identifier == "refresh" }
            #expect(refresh?.earliestBeginDate == world.instant(500))
            await scheduler.cancelAllTaskRequests()
            counts.append(await scheduler.pendingTaskRequests().count)
            return (errors, await world.taskTrace(app), counts)
        }
        #expect(errors[0] == nil)
        #expect(errors[1] == .tooManyPendingTaskRequests)
        #expect(errors[2] == nil)
        #expect(errors[3...12].allSatisfy { $0 == nil })
        #expect(errors[13] == .tooManyPendingTaskRequests)
        #expect(trace.contains("taskReplaced refresh@1"))
        #expect(trace.contains("taskSubmitRejected refresh2 too_many_pending_task_requests@1"))
        #expect(trace.contains("taskSubmitRejected p11 too_many_pending_task_requests@1"))
        #expect(pendingCounts == [11, 10, 0])
        #expect(trace.contains("taskCancelled p1@1"))
    }

    static func submitError(_ world: PhoneWorld, _ app: AppIdentifier, _ request: some BGTaskRequest) async
        -> BGTaskSchedulerError?
    {
        guard let scheduler = await world.scheduler(app) else { return nil }
        do throws(BGTaskSchedulerError) {
            try await scheduler.submit(request)
            return nil
        } catch {
            return error
        }
    }
}
