extension APIPath {
    /// `GET` (user token, or partner token with `?user_id=`): the user's homes, the current one flagged; a first
    /// call creates the default home. `POST`: add a home (`HomeCreateRequest`).
    public static let homes = "/open/partner/homes"
    /// `PATCH`: rename a home or make it current (`HomeUpdateRequest`); `DELETE`: remove an empty home
    /// (`CONFLICT` while devices are in it).
    public static let home = "/open/partner/homes/{home_id}"
    /// `POST`: start binding a device to the caller's user (`DeviceBindRequest`): answers the `owner` string the
    /// app hands to the device with the bind code, or `BIND_OCCUPIED` when another user holds it. `GET`: the
    /// user's devices (`?home_id=`).
    public static let devices = "/open/partner/devices"
    /// `GET` (user token, or partner token with `?user_id=`): the user's device defaults (`DeviceDefaults`): what
    /// its devices do with synced recordings (transcribe, summarise, language, speech tier) unless a device has its
    /// own setting. `PATCH`: change them (`DeviceDefaultsUpdateRequest`).
    public static let deviceDefaults = "/open/partner/device-defaults"
    /// `GET`: one device with its last report; `PATCH`: rename, move to a home, set its own automatic-task
    /// settings or follow the user's defaults again (`DeviceUpdateRequest`); `DELETE`: remove it from the registry (unbind, `?clear=` records whether the
    /// device's recordings were erased).
    public static let device = "/open/partner/devices/{serial}"
    /// `PUT`: finish binding with the secret the device answered (`DeviceSecretRequest`); the secret stays on the
    /// server from then on.
    public static let deviceSecret = "/open/partner/devices/{serial}/secret"
    /// `POST`: the device's proof for a session challenge, HMAC-SHA256(secret, challenge) (`DeviceProofRequest` →
    /// `DeviceProof`), so the secret never lives on a phone.
    public static let deviceProof = "/open/partner/devices/{serial}/proof"
    /// `POST`: what the device reported over its link (`DeviceStatusReport`): battery, storage, firmware; marks it
    /// online.
    public static let deviceStatus = "/open/partner/devices/{serial}/status"
    /// `POST`: a synced recording (`DeviceRecordingRequest`): the server checks the uploaded file's SHA-256
    /// against the device's, makes it a record (`source: device:<serial>`) once, and starts the device's
    /// automatic tasks. Answers `DeviceRecording`; the app acknowledges to the device only after it. `GET`: the
    /// recordings the server holds for this device (`?after=` device recording id), so a restarted app skips them.
    public static let deviceRecordings = "/open/partner/devices/{serial}/recordings"
    /// `POST`: a presigned multipart plan for the device to upload one recording itself over Wi-Fi
    /// (`DeviceUploadPlanRequest` → `UploadPlan`); `DEVICE_OFFLINE` when the device has not reported lately.
    public static let deviceUploadPlan = "/open/partner/devices/{serial}/upload-plan"
    /// `POST`: the Wi-Fi plans of several recordings in one call (`DeviceUploadPlansRequest` →
    /// `DeviceUploadPlans`, at most `DeviceUploadPlansRequest.limit`), all or none: `DEVICE_OFFLINE`, or `CONFLICT`
    /// when the server already holds one of them.
    public static let deviceUploadPlans = "/open/partner/devices/{serial}/upload-plans"
}
