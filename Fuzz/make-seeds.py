#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target under Fuzz/Corpus/TARGET/ (seed-*.bin).

Seeds are valid samples of each input (from the specification's examples and the tests'
fixtures) in the layout each target reads (Sources/BLEFuzzTargets); libFuzzer mutates from
them. Crash reproducers live beside them as regression-*.bin and are never rewritten here.
Run from the repository root: python3 Fuzz/make-seeds.py
"""
import os
import struct


def h(text):
    return bytes.fromhex(text.replace(" ", ""))


def chunks(data, size):
    """The h4-stream / device-frames layout: each chunk preceded by its length - 1 (mod 64/40)."""
    out = b""
    for i in range(0, len(data), size):
        part = data[i:i + size]
        out += bytes([len(part) - 1]) + part
    return out


def crc16(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def frame(kind, message_type, sequence, payload):
    body = bytes([0xA5, 0x10 | kind, message_type, sequence]) + struct.pack("<H", len(payload)) + payload
    return body + struct.pack("<H", crc16(body))


EVENTS = [
    "0e 04 01 03 0c 00",  # Command Complete (Reset)
    "0e 0a 01 09 10 00 03 02 01 dc 1b 00",  # Command Complete (Read BD_ADDR)
    "0f 04 00 01 0d 20",  # Command Status (LE Create Connection)
    "3e 13 01 00 40 00 00 01 01 00 00 00 00 c0 18 00 00 00 c8 00 00",  # LE Connection Complete
    "3e 1a 02 01 00 00 01 00 00 00 00 c0 0e 02 01 06 03 03 0f 18 05 09 41 42 43 44 c4",  # Adv Report
    "05 04 00 40 00 13",  # Disconnection Complete
    "13 05 01 40 00 01 00",  # Number Of Completed Packets
    "3e 0a 03 00 40 00 18 00 00 00 c8 00",  # LE Connection Update Complete
    "3e 0b 07 40 00 fb 00 48 08 fb 00 48 08",  # LE Data Length Change
    "08 04 00 40 00 01",  # Encryption Change
    "3e 0d 05 40 00 01 02 03 04 05 06 07 08 00 00",  # LE Long Term Key Request
]
COMMANDS = [
    "03 0c 00",  # Reset
    "09 10 00",  # Read BD_ADDR
    "01 20 08 ff ff ff ff ff ff 00 00",  # LE Set Event Mask
    "06 20 0f a0 00 a0 00 00 00 00 00 00 00 00 00 00 07 00",  # LE Set Advertising Parameters
    "08 20 20 0f 02 01 06 03 03 0f 18 07 09 73 77 69 66 74 00" + " 00" * 12,  # LE Set Advertising Data
    "0a 20 01 01",  # LE Set Advertising Enable
    "0b 20 07 01 10 00 10 00 00 00",  # LE Set Scan Parameters
    "0c 20 02 01 00",  # LE Set Scan Enable
    "0d 20 19 60 00 30 00 00 01 01 00 00 00 c0 00 18 00 28 00 00 00 2a 00 00 00 00 00",  # LE Create Connection
    "06 04 03 40 00 13",  # Disconnect
    "22 20 06 40 00 fb 00 48 08",  # LE Set Data Length
    "36 20 19 00 13 00 a0 00 00 a0 00 00 07 00 00 00 00 00 00 00 00 00 00 00 7f 01 00 01 00 00",  # LE Set Ext Adv Params
]
ATT = [
    "02 f7 00", "03 17 00", "04 01 00 ff ff", "06 01 00 ff ff 00 28 0f 18", "08 01 00 ff ff 03 28",
    "0a 03 00", "0c 1f 00 16 00", "0e 03 00 05 00", "10 01 00 ff ff 00 28", "12 03 00 41 42",
    "16 1f 00 00 00 41 42", "18 01", "18 00", "1b 18 00 64", "1d 18 00 64", "1e", "52 23 00 41",
    "01 0a 03 00 0a", "20 01 00 ff ff 00 28", "23 03 00 02 00 01 02", "d2 23 00 41" + " 00" * 12,
]
SIGNALLING = [
    "12 01 08 00 06 00 0c 00 00 00 c8 00",  # Connection Parameter Update Request
    "13 01 02 00 00 00",  # Connection Parameter Update Response
    "14 02 0a 00 80 00 40 00 f7 00 f7 00 0a 00",  # LE Credit Based Connection Request
    "15 02 0a 00 41 00 f7 00 f7 00 0a 00 00 00",  # LE Credit Based Connection Response
    "16 03 04 00 41 00 05 00",  # Flow Control Credit Indication
    "01 01 02 00 00 00",  # Command Reject
    "06 04 04 00 41 00 40 00",  # Disconnection Request
    "17 05 0a 00 80 00 f7 00 f7 00 0a 00 40 00 41 00",  # Credit Based Connection Request
]
SMP = [
    "01 03 00 01 10 07 07", "02 03 00 01 10 07 07", "03" + " 11" * 16, "04" + " 22" * 16, "05 08",
    "0b 01", "0c" + " 33" * 64, "0d" + " 44" * 16, "06" + " 55" * 16, "07 01 02" + " 66" * 8,
    "08" + " 77" * 16, "09 00" + " 01 02 03 04 05 06", "0a" + " 88" * 16, "0e 00",
]
AD = [
    "02 01 06 03 03 0f 18 05 09 41 42 43 44", "02 0a 00 05 ff 4c 00 01 02",
    "11 07 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e", "05 12 06 00 0c 00 03 19 40 03",
    "0b 16 aa fe 10 00 03 67 6f 6f 67 6c", "02 01 1a 09 08 73 77 69 66 74 2d 62 6c",
]


def btsnoop(packets):
    out = b"btsnoop\0" + struct.pack(">II", 1, 1002)
    ts = 0x00E03AB44A676000
    for i, (flags, data) in enumerate(packets):
        out += struct.pack(">IIII", len(data), len(data), flags, 0) + struct.pack(">q", ts + i * 1000) + data
    return out


def firmware_file_seeds():
    """firmware-file: the whole input is the file (docs/firmware-files.md): raw, Intel HEX,
    MCUboot (header, image, protected and unprotected TLVs, SHA-256), a Nordic DFU zip."""
    import hashlib
    import io
    import zipfile
    raw = bytes((i * 31 + 7) & 0xFF for i in range(64))

    def hex_record(kind, address, data):
        body = bytes([len(data), address >> 8, address & 0xFF, kind]) + data
        return ":" + (body + bytes([(-sum(body)) & 0xFF])).hex().upper() + "\n"
    intel = hex_record(4, 0, b"\x00\x01") + hex_record(0, 0x0000, raw[:16]) + hex_record(0, 0x0020, raw[16:32])
    intel += hex_record(5, 0, b"\x00\x01\x00\x00") + hex_record(1, 0, b"")

    def mcuboot(protected):
        protected_area = b""
        if protected:
            entry = bytes([0x50, 0]) + struct.pack("<H", 4) + b"\x01\x00\x00\x00"
            protected_area = struct.pack("<HH", 0x6908, 4 + len(entry)) + entry
        header = struct.pack("<IIHHIIBBHII", 0x96F3B83D, 0, 32, len(protected_area), len(raw), 0, 1, 2, 3, 4, 0)
        digest = hashlib.sha256(header + raw + protected_area).digest()
        tlv = bytes([0x10, 0]) + struct.pack("<H", 32) + digest
        return header + raw + protected_area + struct.pack("<HH", 0x6907, 4 + len(tlv)) + tlv
    buffer = io.BytesIO()
    def entry(name, method):
        # A fixed date, so the seed is the same on every run.
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = method
        return info
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(entry("manifest.json", zipfile.ZIP_DEFLATED),
                         '{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"}}}')
        archive.writestr(entry("app.bin", zipfile.ZIP_DEFLATED), raw * 4)
        archive.writestr(entry("app.dat", zipfile.ZIP_STORED), b"\x12\x04\x0a\x02\x08\x01")
    return [raw, intel.encode(), mcuboot(False), mcuboot(True), buffer.getvalue()]


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")
    corpus = {}
    corpus["hci-event"] = [h(e) for e in EVENTS]
    corpus["hci-command"] = [h(c) for c in COMMANDS]
    corpus["att"] = [h(a) for a in ATT]
    corpus["l2cap-signalling"] = [h(s) for s in SIGNALLING]
    corpus["smp"] = [h(s) for s in SMP]
    corpus["advertising-data"] = [h(a) for a in AD]
    h4 = [b"\x04" + h(e) for e in EVENTS] + [b"\x01" + h(c) for c in COMMANDS]
    acl_att = h("02 40 20 07 00 03 00 04 00 0a 03 00")
    acl_smp = h("02 40 20 0b 00 07 00 06 00 01 03 00 01 10 07 07")
    acl_sig = h("02 40 20 10 00 0c 00 05 00 12 01 08 00 06 00 0c 00 00 00 c8 00")
    corpus["render"] = h4 + [acl_att, acl_smp, acl_sig, h("02 40 10 03 00 0a 03 00"), h("05 40 00 04 00 01 02 03 04")]
    stream = b"".join(h4[:6]) + acl_att
    corpus["h4-stream"] = [b"\x00" + chunks(stream, 64), b"\x00" + chunks(stream, 7), b"\x00" + chunks(acl_sig, 1)]
    # acl-reassembly: selector 0, then [header: handle | boundary << 2][length][data].
    whole = h("03 00 04 00 0a 03 00")
    long_pdu = struct.pack("<HH", 40, 4) + bytes([0x1B, 0x18, 0x00]) + bytes(range(37))
    corpus["acl-reassembly"] = [
        b"\x00" + bytes([0x08, len(whole)]) + whole,
        b"\x00" + bytes([0x08, 20]) + long_pdu[:20] + bytes([0x04, 24]) + long_pdu[20:],
        b"\x00" + bytes([0x08, 2]) + long_pdu[:2] + bytes([0x04, 42]) + long_pdu[2:],
        b"\x00" + bytes([0x09, 20]) + long_pdu[:20] + bytes([0x08, len(whole)]) + whole + bytes([0x05, 24]) + long_pdu[20:],
    ]
    corpus["btsnoop"] = [
        btsnoop([(2, h4[0]), (3, h4[1]), (0, acl_att), (1, acl_smp)]),
        btsnoop([(3, b"\x04" + h(EVENTS[4]))]),
    ]
    frames = [
        frame(1, 0x81, 1, b""), frame(2, 0x01, 1, h("01 02 03 04")), frame(0, 0x05, 0, h("64")),
        frame(1, 0x83, 2, h("01 00 00 00 00 10 00 00 78 56 34 12")), frame(0, 0x88, 0, h("0a 00")),
    ]
    corpus["device-frames"] = [b"\x00" + chunks(f, 40) for f in frames] + [b"\x00" + chunks(b"".join(frames), 20)]
    # gatt-server: [MTU - 23][queue limit], then [choice (even: first client)][length][PDU].
    def steps(pdus, client=0):
        return b"".join(bytes([client, len(p)]) + p for p in pdus)
    att = [h(a) for a in ATT]
    corpus["gatt-server"] = [
        b"\xe0\x07" + steps(att[:12]),
        b"\x00\x02" + steps([h("16 1f 00 00 00 41 42"), h("16 1f 00 02 00 43"), h("18 01")]),
        b"\x28\x04" + steps([h("02 40 00"), h("12 23 00 01 02"), h("0a 23 00")], client=1) + b"\xf0\x09\x00",
        b"\x00\x04" + steps([h("12 19 00 02 00")]) + b"\xf7\x18\x00\x02\x01\x02" + steps([h("1e")]),
    ]
    # host: [LE ACL buffer - 27], then steps [choice][…] (see HostStep.script).
    def att_step(pdu, handle_index=0):
        return bytes([handle_index << 4 | 3, 0, len(pdu)]) + pdu
    corpus["host"] = [
        b"\x00" + b"\x00\x00" + b"".join(att_step(p) for p in att[:8]) + b"\x07\x10\x27",
        b"\xe0" + b"\x00\x01" + att_step(h("02 f7 00")) + att_step(h("0a 03 00")) + b"\x02\x01\x00" + b"\x01\x13",
        b"\x00" + b"\x00\x00" + bytes([0x03, 1, 11]) + h("01 03 00 01 10 07 07") + b"\x07\x30\x75",
        b"\x00" + b"\x00\x00" + bytes([0x03, 2, 12]) + h("12 01 08 00 06 00 0c 00 00 00 c8 00") + b"\x05\x06" + h("3e 04 03 00 40 00"),
    ]
    # controller: steps [choice % 8 < 5: command index (u16) + [length][parameters]] …
    corpus["controller"] = [
        bytes([0, i, 0, 0]) for i in range(0, 60, 3)
    ] + [b"\x00\x05\x00\x01\x01\x06\xe8\x03" + b"\x05\x08\x07" + whole]
    # l2cap-channels: [mtu][mps][credits][server limit], then steps: 0xF0–0xF6 our calls and the
    # peer's K-frames ([length][payload]), anything else [length][C-frame][security].
    def signal(text):
        frame = h(text)
        return b"\x01" + bytes([len(frame)]) + frame + b"\x01"
    le_request = "14 07 0a 00 80 00 50 00 64 00 32 00 03 00"
    enhanced_request = "17 05 0c 00 80 00 64 00 40 00 04 00 50 00 51 00"
    corpus["l2cap-channels"] = [
        b"\x40\x20\x02\x01" + signal(le_request) + b"\xf6\x05\x03\x00\x01\x02\x03" + b"\xf5\x04abcd"
        + signal("16 03 04 00 50 00 05 00") + signal("06 09 04 00 40 00 50 00"),
        b"\x40\x20\x02\x03" + signal(enhanced_request) + signal("19 0b 06 00 c8 00 40 00 50 00") + b"\xf2\xf3\x1e",
        b"\x10\x10\x01\x01" + b"\xf0\x80" + signal("15 01 0a 00 60 00 64 00 40 00 02 00 00 00") + b"\xf4",
        b"\x10\x10\x01\x01" + b"\xf1\x03" + signal("18 01 0c 00 64 00 40 00 02 00 04 00 60 00 00 00 61 00"),
    ]
    # smp-session: [IO capabilities and legacy flags][OOB, MITM, key size], then steps: 0xF0/0xF1
    # relay one command, 0xF2 an answer, 0xF3 a timeout, 0xF4 encryption, 0xF5 relay until quiet,
    # 0xF6 answer everything yes, anything else [length][SMP PDU] to one side (even: initiator).
    honest = b"\xf5\xf6\xf5\xf6\xf5\xf6\xf5\xf6\xf5\xf4\x00\xf5"
    corpus["smp-session"] = [
        b"\x1c\x90" + honest,  # Secure Connections Just Works
        b"\x0b\x90" + honest,  # Numeric Comparison
        b"\x02\x90" + honest,  # Passkey Entry
        b"\xe4\x90" + honest,  # legacy Just Works
        b"\xca\x90" + honest,  # legacy Passkey Entry
        b"\x1c\x93" + honest,  # Out of Band flags
        b"\x1c\x90\xf5\xf6\xf5\xf3\x01\xf5",  # a timeout
        b"\x1c\x90\xf5\xf6\xf5\xf6" + bytes([1, 65, 0x0C]) + bytes(range(32)) + bytes(32),  # Y = 0
        b"\x1c\x90" + b"".join(bytes([1, len(p)]) + p for p in [h(x) for x in SMP]),
        b"\x1c\x90" + b"".join(bytes([0, len(p)]) + p for p in [h(x) for x in SMP]) + b"\x00\x03\x20\x01\x02",
    ]
    # bond-blobs: [selector (even: a bonded client's state, odd: a database cache)][blob], the
    # forms of Sources/BLE/Security/BondBlobs.swift.
    corpus["bond-blobs"] = [
        h("00 01 0200 0900 0200 1200 0100 01 07 00 10" + " 00" * 16 + " 01 4d000000"),
        h("00 01 0000 00 01 00 00"),
        h("01 01 0100 2100 ffff 0200"
          " 01 0100 0500 02 0f18 0100 0400 1000 1800 02 3412 0100 02 192a 0200 0300 12 0500 0100 02 0229 0500"
          " 00 1000 1800 10 9ecadc24 0ee5a9e0 93f3a3b5 0100406e 0000 0000"),
        h("01 01 0100 0100 ffff 0000"),
    ]
    corpus["firmware-file"] = firmware_file_seeds()
    for target, seeds in corpus.items():
        directory = os.path.join(root, target)
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):
            if name.startswith("seed-"):
                os.remove(os.path.join(directory, name))
        for index, seed in enumerate(seeds):
            with open(os.path.join(directory, "seed-%02d.bin" % index), "wb") as f:
                f.write(seed)


if __name__ == "__main__":
    main()
