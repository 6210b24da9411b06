extension ScriptedApp {
    /// Registers a launch handler for each permitted identifier, inside `didFinishLaunching` (as
    /// iOS requires). The handler runs the script's `scheduled_task` reactions for the task; an
    /// expiration handler is set only when the script has a `task_expiration` reaction. A task
    /// the steps do not complete stays open (and expires).
    func registerScheduledTasks() async {
        let identifiers = script.permittedTaskIdentifiers.sorted()
        guard !identifiers.isEmpty else { return }
        let scheduler = context.taskScheduler
        for identifier in identifiers {
            do {
                try await scheduler.register(forTaskWithIdentifier: identifier) { [self] task in
                    await self.runScheduledTask(task)
                }
            } catch {
                await note("register '\(identifier)' failed: \(error)")
            }
        }
    }

    private func runScheduledTask(_ task: BGTask) async {
        scheduledTasks.append(task)
        let expirationSteps = script.reactions.filter { $0.trigger == .taskExpiration }.flatMap(\.steps)
        if !expirationSteps.isEmpty {
            task.expirationHandler = { [self] in await self.perform(expirationSteps) }
        }
        for reaction in script.reactions {
            guard case .scheduledTask(let only) = reaction.trigger, only == nil || only == task.identifier else {
                continue
            }
            await perform(reaction.steps)
        }
    }

    func perform(_ step: PhoneScenario.TaskStep) async {
        let scheduler = context.taskScheduler
        do {
            switch step {
            case .submitRefresh(let id, let earliest):
                try await scheduler.submit(
                    BGAppRefreshTaskRequest(
                        identifier: id, earliestBeginDate: earliest.map { scheduler.now.advanced(by: $0) }))
            case .submitProcessing(let id, let earliest, let power, let network):
                try await scheduler.submit(
                    BGProcessingTaskRequest(
                        identifier: id, earliestBeginDate: earliest.map { scheduler.now.advanced(by: $0) },
                        requiresExternalPower: power, requiresNetworkConnectivity: network))
            case .complete(let success):
                let tasks = scheduledTasks
                scheduledTasks = []
                for task in tasks { await task.setTaskCompleted(success: success) }
            case .cancel(let id):
                await scheduler.cancel(taskRequestWithIdentifier: id)
            }
        } catch {
            // The phone traced the refusal; the script notes it too.
            await note("submit failed: \(error)")
        }
    }
}
