import BLE
import BLEController
import BLEHost
import BLESimulation
import BLEWire

/// The benchmark's application code. Like a Core Bluetooth app's delegate code, which runs on
/// its manager's queue, each loop runs isolated to the manager or peripheral it drives (all of
/// them share the host's executor), so the figures are the stack's cost, not that of hopping
/// between the app's executor and the stack's.
extension GATTBenchmark.Session {
    typealias Failure = GATTBenchmark.Failure

    /// Notifications (Core 5.4 Vol 3 Part G §4.10): the peripheral manager sends values as fast
    /// as `updateValue` takes them, waiting for `.readyToUpdateSubscribers` whenever it returns
    /// false; the central checks each value on its value stream. Returns the throughput and how
    /// often `updateValue` said the queue was full.
    func streamNotifications(clock: VirtualClock?) async throws -> (GATTBenchmark.Throughput, Int) {
        let count = parameters.notifications
        let length = parameters.valueLength
        let (manager, local, values, peripheral) = (self.manager, self.local, self.values, self.peripheral)
        let wallStart = ContinuousClock.now
        let virtualStart = clock?.now
        let sender = Task(executorPreference: manager.stack.executor) {
            try await Self.notify(count: count, length: length, of: local, from: manager)
        }
        let arrivals: [VirtualInstant]
        do {
            arrivals = try await Self.receive(count: count, length: length, from: values, clock: clock, on: peripheral)
        } catch {
            sender.cancel()
            throw error
        }
        let wallTime = wallStart.duration(to: .now)
        let virtualTime = virtualStart.flatMap { start in clock.map { start.duration(to: $0.now) } }
        let fullQueue = try await sender.value
        let prediction = GoodputPrediction(profile: parameters.profile, traffic: .notification)
        let throughput = GATTBenchmark.Throughput(
            values: count, octets: count * length, wallTime: wallTime, virtualTime: virtualTime,
            virtualKbps: GATTBenchmark.goodputKbps(
                arrivals: arrivals, valueLength: length, interval: prediction.link.interval),
            predictedKbps: prediction.goodput)
        return (throughput, fullQueue)
    }

    private static func notify(
        count: Int, length: Int, of local: Characteristic, from manager: isolated PeripheralManager
    ) async throws -> Int {
        var events = manager.events.makeAsyncIterator()
        var fullQueue = 0
        var index = 0
        while index < count {
            if try await manager.updateValue(GATTBenchmark.value(index, length: length), for: local) {
                index += 1
                continue
            }
            fullQueue += 1
            var ready = false
            while !ready, let event = await events.next() {
                if case .readyToUpdateSubscribers = event { ready = true }
            }
            guard ready else { throw Failure.setup("the peripheral manager closed") }
        }
        return fullQueue
    }

    /// Checks `count` values in order; returns their arrival instants (virtual time).
    private static func receive(
        count: Int, length: Int, from values: EventStream<[UInt8]>, clock: VirtualClock?,
        on peripheral: isolated Peripheral
    ) async throws -> [VirtualInstant] {
        var arrivals: [VirtualInstant] = []
        if clock != nil { arrivals.reserveCapacity(count) }
        var received = 0
        for await value in values {
            guard GATTBenchmark.isValue(value, received, length: length) else {
                throw Failure.corrupted("notification \(received) arrived wrong: \(value.prefix(8))…")
            }
            if let clock { arrivals.append(clock.now) }
            received += 1
            if received == count { return arrivals }
        }
        throw Failure.corrupted("\(received) of \(count) notifications arrived")
    }

    /// Write Characteristic Value (Vol 3 Part G §4.9.3), one after the other: each is timed
    /// from the call to its return, i.e. Write Request out, the app's answer, Write Response
    /// back. The peripheral manager's app checks each value and answers success.
    func timeWriteRequests(clock: VirtualClock?) async throws -> GATTBenchmark.RoundTrips {
        let count = parameters.roundTrips
        let length = parameters.valueLength
        let manager = self.manager
        let responder = Task(executorPreference: manager.stack.executor) {
            await Self.answerWrites(count: count, length: length, on: manager)
        }
        let trips: GATTBenchmark.RoundTrips
        do {
            trips = try await Self.writeRequests(
                count: count, length: length, to: remote, clock: clock, on: peripheral)
        } catch {
            responder.cancel()
            throw error
        }
        let answered = await responder.value
        guard answered == count else { throw Failure.corrupted("\(answered) of \(count) write requests checked") }
        return trips
    }

    private static func answerWrites(count: Int, length: Int, on manager: isolated PeripheralManager) async -> Int {
        var checked = 0
        for await requests in manager.writeRequests {
            guard let request = requests.first else { continue }
            let intact =
                requests.count == 1 && !request.isWriteWithoutResponse
                && GATTBenchmark.isValue(request.value ?? [], checked, length: length)
            manager.respond(to: request, withResult: intact ? .success : .error(.unlikelyError))
            guard intact else { return checked }
            checked += 1
            if checked == count { break }
        }
        return checked
    }

    private static func writeRequests(
        count: Int, length: Int, to remote: Characteristic, clock: VirtualClock?, on peripheral: isolated Peripheral
    ) async throws -> GATTBenchmark.RoundTrips {
        var wallSamples: [Duration] = []
        var virtualSamples: [Duration] = []
        wallSamples.reserveCapacity(count)
        for index in 0..<count {
            let value = GATTBenchmark.value(index, length: length)
            let virtualStart = clock?.now
            let wallStart = ContinuousClock.now
            do {
                try await peripheral.writeValue(value, for: remote, type: .withResponse)
            } catch {
                throw Failure.corrupted("write request \(index) failed: \(error)")
            }
            wallSamples.append(wallStart.duration(to: .now))
            if let clock, let virtualStart { virtualSamples.append(virtualStart.duration(to: clock.now)) }
        }
        return GATTBenchmark.RoundTrips(wallSamples: wallSamples, virtualSamples: virtualSamples)
    }

    /// Write Without Response (Vol 3 Part G §4.9.1): the central writes while
    /// `canSendWriteWithoutResponse` is true and waits for `.readyToSendWriteWithoutResponse`
    /// when it is not; the peripheral manager's app checks each value on `writeRequests`.
    func streamWritesWithoutResponse(clock: VirtualClock?) async throws -> (GATTBenchmark.Throughput, Int) {
        let count = parameters.writesWithoutResponse
        let length = parameters.valueLength
        let manager = self.manager
        let interval = parameters.profile.linkTiming().interval
        let receiver = Task(executorPreference: manager.stack.executor) {
            await Self.receiveWrites(count: count, length: length, clock: clock, on: manager)
        }
        let wallStart = ContinuousClock.now
        let virtualStart = clock?.now
        let notReady = try await Self.writeWithoutResponse(count: count, length: length, to: remote, on: peripheral)
        let (checked, arrivals, last) = await receiver.value
        guard checked == count else {
            throw Failure.corrupted("\(checked) of \(count) writes without response arrived in order and intact")
        }
        let prediction = GoodputPrediction(profile: parameters.profile, traffic: .writeWithoutResponse)
        let throughput = GATTBenchmark.Throughput(
            values: checked, octets: checked * length, wallTime: wallStart.duration(to: last),
            virtualTime: virtualStart.flatMap { start in arrivals.last.map { start.duration(to: $0) } },
            virtualKbps: GATTBenchmark.goodputKbps(arrivals: arrivals, valueLength: length, interval: interval),
            predictedKbps: prediction.goodput)
        return (throughput, notReady)
    }

    private static func writeWithoutResponse(
        count: Int, length: Int, to remote: Characteristic, on peripheral: isolated Peripheral
    ) async throws -> Int {
        var events = peripheral.events().makeAsyncIterator()
        var notReady = 0
        var index = 0
        while index < count {
            if await peripheral.canSendWriteWithoutResponse {
                try await peripheral.writeValue(
                    GATTBenchmark.value(index, length: length), for: remote, type: .withoutResponse)
                index += 1
                continue
            }
            notReady += 1
            var ready = false
            while !ready, let event = await events.next() {
                if case .readyToSendWriteWithoutResponse = event { ready = true }
            }
            guard ready else { throw Failure.setup("the link went down") }
        }
        return notReady
    }

    /// Checks writes without response in order until `count` arrived (or one is wrong);
    /// returns how many were right, their arrival instants, and the wall instant of the last.
    private static func receiveWrites(
        count: Int, length: Int, clock: VirtualClock?, on manager: isolated PeripheralManager
    ) async -> (checked: Int, arrivals: [VirtualInstant], last: ContinuousClock.Instant) {
        var checked = 0
        var arrivals: [VirtualInstant] = []
        if clock != nil { arrivals.reserveCapacity(count) }
        for await requests in manager.writeRequests {
            for request in requests {
                guard request.isWriteWithoutResponse,
                    GATTBenchmark.isValue(request.value ?? [], checked, length: length)
                else { return (checked, arrivals, .now) }
                checked += 1
                if let clock { arrivals.append(clock.now) }
            }
            if checked >= count { break }
        }
        return (checked, arrivals, .now)
    }
}
