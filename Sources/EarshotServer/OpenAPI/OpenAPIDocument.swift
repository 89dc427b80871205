/// The OpenAPI 3.1 document of the whole API. `docs/openapi.json` is a copy kept in the repository; a test
/// checks that they are identical and that every registered route is documented (and every documented path
/// served). Edit the JSON here, then run the tests with `EARSHOT_UPDATE_OPENAPI=1` to rewrite the copy.
enum OpenAPIDocument {
    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Earshot platform API",
            "version": "0.1.0",
            "description": "Self-hosted AI voice notes. Partners (tenants) exchange client credentials for a partner token, issue short-lived user tokens for their apps, and upload audio in parts through presigned URLs. Errors are `{\"error\":{\"code\":\"…\",\"message\":\"…\",\"request_id\":\"…\"}}` with a stable code. Upload plan and completion responses use PascalCase field names (as the seed clients expect); everything else is snake_case. Paths may sit behind a configurable prefix such as `/developer/api`."
          },
          "servers": [
            {
              "url": "http://127.0.0.1:8080"
            }
          ],
          "tags": [
            {
              "name": "auth",
              "description": "Partner and user tokens."
            },
            {
              "name": "files",
              "description": "Multipart uploads and downloads."
            },
            {
              "name": "operations",
              "description": "Health, readiness, metrics, this document."
            },
            {
              "name": "transcription",
              "description": "Transcription tasks (partner token): create with an Idempotency-Key, poll, revoke, export."
            },
            {
              "name": "webhooks",
              "description": "Signed task webhooks: deliveries, redelivery, the signing secret."
            },
            {
              "name": "openai",
              "description": "OpenAI-compatible audio endpoints (partner token as Bearer; synchronous). Point an OpenAI client's base URL at `<server>/v1`."
            },
            {
              "name": "voiceprints",
              "description": "Named speakers per user (partner token naming the user, or a user token): enrol from an uploaded file, list, delete."
            },
            {
              "name": "records",
              "description": "The records library: recordings with transcript, summary, translations, search and offline tasks."
            }
          ],
          "paths": {
            "/healthz": {
              "get": {
                "tags": [
                  "operations"
                ],
                "operationId": "getHealth",
                "summary": "Liveness",
                "security": [],
                "responses": {
                  "200": {
                    "description": "The process is up.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Liveness"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/readyz": {
              "get": {
                "tags": [
                  "operations"
                ],
                "operationId": "getReadiness",
                "summary": "Readiness: the stores answer",
                "security": [],
                "responses": {
                  "200": {
                    "description": "Ready.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Readiness"
                        }
                      }
                    }
                  },
                  "503": {
                    "description": "A store is unavailable; `checks` says which.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Readiness"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/metrics": {
              "get": {
                "tags": [
                  "operations"
                ],
                "operationId": "getMetrics",
                "summary": "Prometheus metrics (text exposition format 0.0.4)",
                "security": [],
                "responses": {
                  "200": {
                    "description": "Metrics.",
                    "content": {
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/openapi.json": {
              "get": {
                "tags": [
                  "operations"
                ],
                "operationId": "getOpenAPI",
                "summary": "This document",
                "security": [],
                "responses": {
                  "200": {
                    "description": "The OpenAPI 3.1 document, with `servers` set to this server's public URL.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/token": {
              "post": {
                "tags": [
                  "auth"
                ],
                "operationId": "createPartnerToken",
                "summary": "Client credentials → partner token",
                "description": "Called by the partner's backend only; the client secret never goes into an app.",
                "security": [],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/PartnerTokenRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "A partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TokenResponse"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Malformed request (`INVALID_ARGUMENT`): bad JSON, a missing or invalid field; the message names it.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Unknown client id, wrong secret or disabled partner (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/user-token": {
              "post": {
                "tags": [
                  "auth"
                ],
                "operationId": "createUserToken",
                "summary": "Partner token + user_id → user token",
                "description": "The user token is the only credential an app holds: it can upload files, bind devices and read its own user's records. Lifetime: `ttl_seconds`, capped by the server's `user-token-ttl` (also the default).",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/UserTokenRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "A user token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TokenResponse"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Malformed request (`INVALID_ARGUMENT`): bad JSON, a missing or invalid field; the message names it.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "A user token cannot issue user tokens (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/upload/generate-presigned-urls": {
              "post": {
                "tags": [
                  "files"
                ],
                "operationId": "createUploadPlan",
                "summary": "Plan a multipart upload",
                "description": "Returns one presigned `PUT` URL per part. Every part but the last is exactly `ChunkSize` bytes.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/UploadPlanRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The plan.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/UploadPlan"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Bad filesize or a file type outside the allow-list (`INVALID_ARGUMENT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "413": {
                    "description": "filesize exceeds the server's `upload-max-file-size` (`PAYLOAD_TOO_LARGE`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/upload/parts/{upload_id}/{part_number}": {
              "put": {
                "tags": [
                  "files"
                ],
                "operationId": "uploadPart",
                "summary": "Upload one part (presigned URL)",
                "description": "The URL is the credential: no bearer token. Re-sending a part replaces it. Answers 200 with `ETag` = quoted MD5 hex of the part.",
                "security": [],
                "parameters": [
                  {
                    "name": "upload_id",
                    "in": "path",
                    "required": true,
                    "description": "UploadId of the plan.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "part_number",
                    "in": "path",
                    "required": true,
                    "description": "1-based part number.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1
                    }
                  },
                  {
                    "$ref": "#/components/parameters/Expires"
                  },
                  {
                    "$ref": "#/components/parameters/Key"
                  },
                  {
                    "$ref": "#/components/parameters/Signature"
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/octet-stream": {
                      "schema": {
                        "type": "string",
                        "contentMediaType": "application/octet-stream"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "Stored.",
                    "headers": {
                      "ETag": {
                        "description": "Quoted MD5 hex of the part, e.g. `\"9e107d9d372bb6826bd81d3542a419d6\"`.",
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "The part has the wrong size or number (`INVALID_ARGUMENT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The signed URL is missing its signature, was altered, or has expired (`FORBIDDEN`); the message says which.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "The upload was aborted, expired or never existed (`NOT_FOUND`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The upload is already completed (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "413": {
                    "description": "The part is larger than `ChunkSize` (`PAYLOAD_TOO_LARGE`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/upload/complete-upload": {
              "post": {
                "tags": [
                  "files"
                ],
                "operationId": "completeUpload",
                "summary": "Verify the parts and assemble the file",
                "description": "Checks that `part_list` names every part 1…N once with the ETag its PUT returned, and that the sizes add up; assembles atomically. Completing again returns the same file.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/CompleteUploadRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The file.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/CompleteUploadResponse"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "A part is missing, listed twice, never uploaded or has a different ETag; the message names it (`INVALID_ARGUMENT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/upload/{upload_id}/parts": {
              "get": {
                "tags": [
                  "files"
                ],
                "operationId": "listUploadParts",
                "summary": "Parts received so far (resume)",
                "description": "Lists stored parts with their ETags and gives fresh presigned URLs for the missing ones.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "upload_id",
                    "in": "path",
                    "required": true,
                    "description": "UploadId of the plan.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The upload's state.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/UploadStatus"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/upload/{upload_id}": {
              "delete": {
                "tags": [
                  "files"
                ],
                "operationId": "abortUpload",
                "summary": "Abort an upload and discard its parts",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "upload_id",
                    "in": "path",
                    "required": true,
                    "description": "UploadId of the plan.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "204": {
                    "description": "Aborted."
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The upload is already completed (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/{file_id}": {
              "get": {
                "tags": [
                  "files"
                ],
                "operationId": "getFile",
                "summary": "A file's metadata and a fresh download URL",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "file_id",
                    "in": "path",
                    "required": true,
                    "description": "FileId of the plan.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The file.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/FileInfo"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/files/{file_id}/download": {
              "get": {
                "tags": [
                  "files"
                ],
                "operationId": "downloadFile",
                "summary": "The file's bytes (signed URL, Range supported)",
                "security": [],
                "parameters": [
                  {
                    "name": "file_id",
                    "in": "path",
                    "required": true,
                    "description": "FileId.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "Range",
                    "in": "header",
                    "required": false,
                    "description": "`bytes=a-b`, `a-` or `-n`.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "$ref": "#/components/parameters/Expires"
                  },
                  {
                    "$ref": "#/components/parameters/Key"
                  },
                  {
                    "$ref": "#/components/parameters/Signature"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The whole file.",
                    "content": {
                      "application/octet-stream": {
                        "schema": {
                          "type": "string",
                          "contentMediaType": "application/octet-stream"
                        }
                      }
                    }
                  },
                  "206": {
                    "description": "The requested range, with `Content-Range`."
                  },
                  "403": {
                    "description": "The signed URL is missing its signature, was altered, or has expired (`FORBIDDEN`); the message says which.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such file (`NOT_FOUND`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "416": {
                    "description": "The range starts past the end."
                  }
                }
              }
            },
            "/open/partner/transcriptions": {
              "post": {
                "tags": [
                  "transcription"
                ],
                "operationId": "createTranscription",
                "summary": "Create a transcription task",
                "description": "Queues the transcription of an uploaded file. `file_url` must be a `DownloadUrl` or `FileId` from `complete-upload` on this server; other URLs are refused and never fetched. With an `Idempotency-Key` header, the same key and body return the same task (200, `Idempotent-Replayed: true`); the same key with another body is 409.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "required": false,
                    "description": "Makes retries safe (1-255 characters).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/TranscriptionTaskRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "201": {
                    "description": "Created (status `PENDING`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TranscriptionTask"
                        }
                      }
                    }
                  },
                  "200": {
                    "description": "The task already created with this Idempotency-Key and body.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TranscriptionTask"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "The file does not exist in this tenant (`NOT_FOUND`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The Idempotency-Key was used with a different body (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              },
              "get": {
                "tags": [
                  "transcription"
                ],
                "operationId": "listTranscriptions",
                "summary": "List transcription tasks, newest first",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "cursor",
                    "in": "query",
                    "required": false,
                    "description": "`next_cursor` of the previous page.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "limit",
                    "in": "query",
                    "required": false,
                    "description": "Page size, 1-200 (default 50).",
                    "schema": {
                      "type": "integer"
                    }
                  },
                  {
                    "name": "status",
                    "in": "query",
                    "required": false,
                    "description": "Only tasks in this state: PENDING, RUNNING (RECEIVED/STARTED/PROGRESS), SUCCESS, FAILURE, REVOKED.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "user_id",
                    "in": "query",
                    "required": false,
                    "description": "Only tasks created for this user.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "A page of tasks (without segments).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TranscriptionTaskList"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/transcriptions/{task_id}": {
              "get": {
                "tags": [
                  "transcription"
                ],
                "operationId": "getTranscription",
                "summary": "A task, with segments once SUCCESS",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The task.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TranscriptionTask"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/transcriptions/{task_id}/revoke": {
              "post": {
                "tags": [
                  "transcription"
                ],
                "operationId": "revokeTranscription",
                "summary": "Stop a queued or running task",
                "description": "A running decode stops within one decoder step; the task becomes `REVOKED`. Revoking a revoked task returns it unchanged.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The revoked task.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TranscriptionTask"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The task already finished (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/transcriptions/{task_id}/speakers": {
              "put": {
                "tags": [
                  "transcription"
                ],
                "operationId": "renameSpeakers",
                "summary": "Rename the speakers of a finished transcript",
                "description": "`names` maps a speaker label as diarization gave it (`Speaker 1`, or an enrolled voiceprint's name) or a name given earlier to a new name (1-64 characters); renaming a speaker to its own label removes the name. Stored with the task and applied to `GET` and every export.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/SpeakerRenameRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The task with the new names in its segments.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TranscriptionTask"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`): empty `names`, an unknown speaker (the message lists the transcript's speakers), an empty or too long name, two speakers with one name, or a task without diarization.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The task is not SUCCESS (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/transcriptions/{task_id}/export": {
              "get": {
                "tags": [
                  "transcription"
                ],
                "operationId": "exportTranscription",
                "summary": "A finished transcript as SRT, WebVTT, text, JSON or TSV",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "format",
                    "in": "query",
                    "required": false,
                    "description": "srt, vtt, txt, json (default) or tsv.",
                    "schema": {
                      "type": "string",
                      "enum": [
                        "srt",
                        "vtt",
                        "txt",
                        "json",
                        "tsv"
                      ]
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The transcript (`Content-Disposition: attachment`).",
                    "content": {
                      "application/x-subrip": {
                        "schema": {
                          "type": "string"
                        }
                      },
                      "text/vtt": {
                        "schema": {
                          "type": "string"
                        }
                      },
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      },
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      },
                      "text/tab-separated-values": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The task is not SUCCESS (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/transcriptions/{task_id}/webhook/deliveries": {
              "get": {
                "tags": [
                  "webhooks"
                ],
                "operationId": "listWebhookDeliveries",
                "summary": "The task's webhook deliveries with every attempt",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "Deliveries, oldest first.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WebhookDeliveryList"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/transcriptions/{task_id}/webhook/redeliver": {
              "post": {
                "tags": [
                  "webhooks"
                ],
                "operationId": "redeliverWebhook",
                "summary": "Send the final-state webhook again",
                "description": "Creates a new delivery of the task's final-state event to its callback_url (retried like the first).",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "202": {
                    "description": "Queued.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WebhookDelivery"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The task is not final or has no callback_url (`CONFLICT`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/webhooks/secret": {
              "get": {
                "tags": [
                  "webhooks"
                ],
                "operationId": "getWebhookSecret",
                "summary": "The secret that signs this partner's webhooks",
                "description": "Created on first use. Verify `Earshot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + \".\" + body)>`.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The secret.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WebhookSecret"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/v1/audio/transcriptions": {
              "post": {
                "tags": [
                  "openai"
                ],
                "operationId": "createOpenAITranscription",
                "summary": "Transcribe a file (OpenAI-compatible)",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "$ref": "#/components/requestBodies/OpenAIAudioForm"
                },
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/OpenAIAudioResult"
                  },
                  "400": {
                    "$ref": "#/components/responses/OpenAIBadForm"
                  },
                  "401": {
                    "$ref": "#/components/responses/OpenAIUnauthorized"
                  },
                  "403": {
                    "$ref": "#/components/responses/OpenAIForbidden"
                  },
                  "413": {
                    "$ref": "#/components/responses/OpenAIFileTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/OpenAISaturated"
                  }
                }
              }
            },
            "/v1/audio/translations": {
              "post": {
                "tags": [
                  "openai"
                ],
                "operationId": "createOpenAITranslation",
                "summary": "Translate a file to English (OpenAI-compatible)",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "$ref": "#/components/requestBodies/OpenAIAudioForm"
                },
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/OpenAIAudioResult"
                  },
                  "400": {
                    "$ref": "#/components/responses/OpenAIBadForm"
                  },
                  "401": {
                    "$ref": "#/components/responses/OpenAIUnauthorized"
                  },
                  "403": {
                    "$ref": "#/components/responses/OpenAIForbidden"
                  },
                  "413": {
                    "$ref": "#/components/responses/OpenAIFileTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/OpenAISaturated"
                  }
                }
              }
            },
            "/open/partner/voiceprints": {
              "post": {
                "tags": [
                  "voiceprints"
                ],
                "operationId": "enrolVoiceprint",
                "summary": "Enrol a named speaker from an uploaded recording",
                "description": "The dominant voice of the file (the first 120 s are used; at least 3 s of one person's speech, 10-30 s is best) becomes the voiceprint of `name` for the user. Later transcription tasks with diarization and that `user_id` call a speaker whose voice matches it (cosine ≥ 0.88 on Resemblyzer vectors) by the name. By convention `Me` is the person wearing the recording device. Enrolling a name again replaces it.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/VoiceprintEnrolmentRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "201": {
                    "description": "The voiceprint (its vector never leaves the server).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Voiceprint"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`): missing `user_id` with a partner token, a bad name, a file that is not audio or holds too little speech.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "A user token naming another user (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such file for this caller (`NOT_FOUND`); a user token only sees its own user's files.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "503": {
                    "description": "The speaker or VAD model is not installed on the server (`UNAVAILABLE`): run `make setup`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              },
              "get": {
                "tags": [
                  "voiceprints"
                ],
                "operationId": "listVoiceprints",
                "summary": "List a user's voiceprints",
                "description": "A user token lists its own user's; a partner token the named `user_id`'s, or every user's without it. Oldest first.",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "user_id",
                    "in": "query",
                    "required": false,
                    "description": "The partner's user.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The voiceprints.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/VoiceprintList"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "A user token naming another user (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/voiceprints/{voiceprint_id}": {
              "delete": {
                "tags": [
                  "voiceprints"
                ],
                "operationId": "deleteVoiceprint",
                "summary": "Delete a voiceprint",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "voiceprint_id",
                    "in": "path",
                    "required": true,
                    "description": "The voiceprint id (`vp_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The deleted voiceprint.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Voiceprint"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such resource for this caller (`NOT_FOUND`); another tenant's ids look exactly like missing ones.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records": {
              "post": {
                "tags": [
                  "records"
                ],
                "operationId": "createRecord",
                "summary": "Create a record from an uploaded file (user token: its own file; partner token: any tenant file, optional user_id); computes duration and amplitude envelope",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/RecordCreateRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "201": {
                    "description": "The new record.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordDetail"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field and what to send instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such file for this caller (`NOT_FOUND`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The record's state does not allow this (`CONFLICT`), e.g. no transcript yet, or the file already has a record.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              },
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "listRecords",
                "summary": "The caller's records (user token: own; partner token: the tenant's), newest record_time first, cursor-paged",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "cursor",
                    "in": "query",
                    "required": false,
                    "description": "next_cursor of the previous page.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "limit",
                    "in": "query",
                    "required": false,
                    "description": "1-200 (default 50).",
                    "schema": {
                      "type": "integer"
                    }
                  },
                  {
                    "name": "tag",
                    "in": "query",
                    "required": false,
                    "description": "Only records with this tag.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "from",
                    "in": "query",
                    "required": false,
                    "description": "Earliest record time: Unix ms, ISO 8601 date-time, or a date (UTC midnight).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "to",
                    "in": "query",
                    "required": false,
                    "description": "Latest record time (a date means the end of that day).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "source",
                    "in": "query",
                    "required": false,
                    "description": "import, phone or device:<serial>.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "has_transcript",
                    "in": "query",
                    "required": false,
                    "description": "true or false.",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "user_id",
                    "in": "query",
                    "required": false,
                    "description": "Partner tokens: one user's records.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "One page.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordList"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field and what to send instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records/search": {
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "searchRecords",
                "summary": "Search titles, tags and transcripts (FTS5 trigram, bm25-ranked; English and Chinese substrings), with highlighted snippets and the matching sentence's start_ms",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "q",
                    "in": "query",
                    "required": true,
                    "description": "Words to find; every word must occur in the record (substrings of 3+ characters; 1-2 character Chinese terms as adjacent characters, short Latin terms as words).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "limit",
                    "in": "query",
                    "required": false,
                    "description": "1-100 (default 20).",
                    "schema": {
                      "type": "integer"
                    }
                  },
                  {
                    "name": "offset",
                    "in": "query",
                    "required": false,
                    "description": "Hits to skip (next_offset of the previous page).",
                    "schema": {
                      "type": "integer"
                    }
                  },
                  {
                    "name": "user_id",
                    "in": "query",
                    "required": false,
                    "description": "Partner tokens: one user's records.",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "Hits, best first.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordSearchResults"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field and what to send instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records/{record_id}": {
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "getRecord",
                "summary": "A record: metadata, amplitude envelope, transcript sentences, summary, translations, latest tasks",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The record.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordDetail"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              },
              "patch": {
                "tags": [
                  "records"
                ],
                "operationId": "updateRecord",
                "summary": "Change the title, the tags or speaker display names (shown in the detail and exports)",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/RecordUpdateRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The record after the change.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordDetail"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field and what to send instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              },
              "delete": {
                "tags": [
                  "records"
                ],
                "operationId": "deleteRecord",
                "summary": "Delete a record with its file (row and blob), search rows and tasks",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "204": {
                    "description": "Deleted."
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records/{record_id}/audio": {
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "getRecordAudio",
                "summary": "The record's audio file (supports Range)",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The audio.",
                    "content": {
                      "application/octet-stream": {
                        "schema": {
                          "type": "string",
                          "format": "binary"
                        }
                      }
                    }
                  },
                  "206": {
                    "description": "The requested byte range.",
                    "content": {
                      "application/octet-stream": {
                        "schema": {
                          "type": "string",
                          "format": "binary"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records/{record_id}/export": {
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "exportRecord",
                "summary": "The record as text, SubRip, WebVTT, JSON or a Markdown note (title, summary, key points, transcript with speakers and timestamps, translations)",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "format",
                    "in": "query",
                    "required": false,
                    "description": "txt, srt, vtt, json or md (default).",
                    "schema": {
                      "type": "string",
                      "enum": [
                        "txt",
                        "srt",
                        "vtt",
                        "json",
                        "md"
                      ]
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The export (`Content-Disposition: attachment`).",
                    "content": {
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      },
                      "application/x-subrip": {
                        "schema": {
                          "type": "string"
                        }
                      },
                      "text/vtt": {
                        "schema": {
                          "type": "string"
                        }
                      },
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      },
                      "text/markdown": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field and what to send instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The record's state does not allow this (`CONFLICT`), e.g. no transcript yet, or the file already has a record.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records/{record_id}/tasks": {
              "post": {
                "tags": [
                  "records"
                ],
                "operationId": "createRecordTask",
                "summary": "Run an offline task: 0 transcribe, 1 summarize, 2 translate (source speech: Whisper to English; transcript: language model). Same queue and states as transcription tasks; a success replaces the record's current result",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/RecordTaskRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "201": {
                    "description": "The queued task.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordTask"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "Invalid request (`INVALID_ARGUMENT`); the message names the field and what to send instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "409": {
                    "description": "The record's state does not allow this (`CONFLICT`), e.g. no transcript yet, or the file already has a record.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              },
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "listRecordTasks",
                "summary": "The record's task history, newest first",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The tasks.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordTaskList"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such record for this caller (`NOT_FOUND`); another user's or tenant's record looks exactly like a missing one.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/open/partner/records/{record_id}/tasks/{task_id}": {
              "get": {
                "tags": [
                  "records"
                ],
                "operationId": "getRecordTask",
                "summary": "One offline task of the record",
                "security": [
                  {
                    "bearer": []
                  }
                ],
                "parameters": [
                  {
                    "name": "record_id",
                    "in": "path",
                    "required": true,
                    "description": "The record id (`rec_…`).",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "task_id",
                    "in": "path",
                    "required": true,
                    "description": "The task id (`task_…`).",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The task.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RecordTask"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "The token lacks the `records:read`/`records:write` scope (`FORBIDDEN`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "No such task on this record (`NOT_FOUND`).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ErrorResponse"
                        }
                      }
                    }
                  }
                }
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearer": {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "JWT",
                "description": "A partner token (`POST /open/partner/token`) or a user token (`POST /open/partner/user-token`)."
              }
            },
            "parameters": {
              "Expires": {
                "name": "expires",
                "in": "query",
                "required": true,
                "description": "Expiry of the signed URL, Unix seconds.",
                "schema": {
                  "type": "integer"
                }
              },
              "Key": {
                "name": "key",
                "in": "query",
                "required": true,
                "description": "Id of the signing key.",
                "schema": {
                  "type": "string"
                }
              },
              "Signature": {
                "name": "signature",
                "in": "query",
                "required": true,
                "description": "Base64url HMAC-SHA256 of the method, path, expiry and key id.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "requestBodies": {
              "OpenAIAudioForm": {
                "required": true,
                "content": {
                  "multipart/form-data": {
                    "schema": {
                      "type": "object",
                      "required": [
                        "file",
                        "model"
                      ],
                      "properties": {
                        "file": {
                          "type": "string",
                          "format": "binary",
                          "description": "The audio file (any format ffmpeg decodes)."
                        },
                        "model": {
                          "type": "string",
                          "description": "whisper-1 (= asr-fast), asr-fast or asr-pro."
                        },
                        "language": {
                          "type": "string"
                        },
                        "prompt": {
                          "type": "string"
                        },
                        "response_format": {
                          "type": "string",
                          "enum": [
                            "json",
                            "text",
                            "srt",
                            "vtt",
                            "verbose_json"
                          ],
                          "default": "json"
                        },
                        "temperature": {
                          "type": "number",
                          "minimum": 0,
                          "maximum": 1
                        },
                        "timestamp_granularities[]": {
                          "type": "array",
                          "items": {
                            "type": "string",
                            "enum": [
                              "segment",
                              "word"
                            ]
                          }
                        }
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "OpenAIAudioResult": {
                "description": "The transcript in `response_format`.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/OpenAITranscription"
                    }
                  },
                  "text/plain": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              },
              "OpenAIBadForm": {
                "description": "Bad form field (`invalid_request_error`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "OpenAIUnauthorized": {
                "description": "Missing, expired, forged or otherwise invalid token (`UNAUTHORIZED`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "OpenAIForbidden": {
                "description": "The token may not do this (`FORBIDDEN`): transcription tasks need a partner token.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "OpenAIFileTooLarge": {
                "description": "The file is larger than openai-max-file-size.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "OpenAISaturated": {
                "description": "RATE_LIMITED: openai-concurrency requests are decoding and as many are waiting, or no slot freed within 30 s. Retry after Retry-After seconds, or submit a task.",
                "headers": {
                  "Retry-After": {
                    "description": "Seconds until a slot is likely free (1-60).",
                    "schema": {
                      "type": "integer"
                    }
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              }
            },
            "schemas": {
              "ErrorResponse": {
                "type": "object",
                "required": [
                  "error"
                ],
                "properties": {
                  "error": {
                    "type": "object",
                    "required": [
                      "code",
                      "message"
                    ],
                    "properties": {
                      "code": {
                        "type": "string",
                        "description": "Stable code: INVALID_ARGUMENT, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, METHOD_NOT_ALLOWED, CONFLICT, PAYLOAD_TOO_LARGE, RATE_LIMITED, BIND_OCCUPIED, DEVICE_NOT_FOUND, UNAVAILABLE, INTERNAL (more may be added)."
                      },
                      "message": {
                        "type": "string"
                      },
                      "request_id": {
                        "type": "string"
                      }
                    }
                  }
                }
              },
              "Liveness": {
                "type": "object",
                "required": [
                  "status"
                ],
                "properties": {
                  "status": {
                    "type": "string",
                    "const": "ok"
                  }
                }
              },
              "Readiness": {
                "type": "object",
                "required": [
                  "status",
                  "checks"
                ],
                "properties": {
                  "status": {
                    "type": "string",
                    "enum": [
                      "ready",
                      "unavailable"
                    ]
                  },
                  "checks": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "object",
                      "required": [
                        "ok"
                      ],
                      "properties": {
                        "ok": {
                          "type": "boolean"
                        },
                        "error": {
                          "type": [
                            "string",
                            "null"
                          ]
                        }
                      }
                    }
                  }
                }
              },
              "PartnerTokenRequest": {
                "type": "object",
                "required": [
                  "client_id",
                  "client_secret"
                ],
                "properties": {
                  "client_id": {
                    "type": "string",
                    "example": "ptn_7k2m9x4q8r1t5v3w6y0z"
                  },
                  "client_secret": {
                    "type": "string"
                  }
                }
              },
              "UserTokenRequest": {
                "type": "object",
                "required": [
                  "user_id"
                ],
                "properties": {
                  "user_id": {
                    "type": "string",
                    "pattern": "^[A-Za-z0-9._@:-]{1,128}$"
                  },
                  "ttl_seconds": {
                    "type": "integer",
                    "minimum": 1
                  }
                }
              },
              "TokenResponse": {
                "type": "object",
                "required": [
                  "access_token",
                  "token_type",
                  "expires_in"
                ],
                "properties": {
                  "access_token": {
                    "type": "string"
                  },
                  "token_type": {
                    "type": "string",
                    "const": "bearer"
                  },
                  "expires_in": {
                    "type": "integer",
                    "description": "Seconds."
                  }
                }
              },
              "UploadPlanRequest": {
                "type": "object",
                "required": [
                  "filesize",
                  "filetype"
                ],
                "properties": {
                  "filesize": {
                    "type": "integer",
                    "minimum": 1
                  },
                  "filetype": {
                    "type": "string",
                    "example": "m4a",
                    "description": "Lowercase extension from the server's `upload-filetypes`."
                  }
                }
              },
              "UploadPlan": {
                "type": "object",
                "required": [
                  "FileId",
                  "UploadId",
                  "ChunkSize",
                  "Parts"
                ],
                "properties": {
                  "FileId": {
                    "type": "string"
                  },
                  "UploadId": {
                    "type": "string"
                  },
                  "ChunkSize": {
                    "type": "integer"
                  },
                  "Parts": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "PartNumber",
                        "PresignedUrl"
                      ],
                      "properties": {
                        "PartNumber": {
                          "type": "integer"
                        },
                        "PresignedUrl": {
                          "type": "string",
                          "format": "uri"
                        }
                      }
                    }
                  }
                }
              },
              "CompleteUploadRequest": {
                "type": "object",
                "required": [
                  "file_id",
                  "upload_id",
                  "part_list"
                ],
                "properties": {
                  "file_id": {
                    "type": "string"
                  },
                  "upload_id": {
                    "type": "string"
                  },
                  "filetype": {
                    "type": "string"
                  },
                  "part_list": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "part_number",
                        "etag"
                      ],
                      "properties": {
                        "part_number": {
                          "type": "integer"
                        },
                        "etag": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              },
              "CompleteUploadResponse": {
                "type": "object",
                "required": [
                  "DownloadUrl",
                  "FileId"
                ],
                "properties": {
                  "DownloadUrl": {
                    "type": "string",
                    "format": "uri"
                  },
                  "FileId": {
                    "type": "string"
                  }
                }
              },
              "UploadStatus": {
                "type": "object",
                "required": [
                  "upload_id",
                  "file_id",
                  "filesize",
                  "filetype",
                  "chunk_size",
                  "part_count",
                  "state",
                  "parts",
                  "pending"
                ],
                "properties": {
                  "upload_id": {
                    "type": "string"
                  },
                  "file_id": {
                    "type": "string"
                  },
                  "filesize": {
                    "type": "integer"
                  },
                  "filetype": {
                    "type": "string"
                  },
                  "chunk_size": {
                    "type": "integer"
                  },
                  "part_count": {
                    "type": "integer"
                  },
                  "state": {
                    "type": "string",
                    "enum": [
                      "open",
                      "completed"
                    ]
                  },
                  "parts": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "part_number",
                        "size",
                        "etag"
                      ],
                      "properties": {
                        "part_number": {
                          "type": "integer"
                        },
                        "size": {
                          "type": "integer"
                        },
                        "etag": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "pending": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "part_number",
                        "presigned_url"
                      ],
                      "properties": {
                        "part_number": {
                          "type": "integer"
                        },
                        "presigned_url": {
                          "type": "string",
                          "format": "uri"
                        }
                      }
                    }
                  }
                }
              },
              "FileInfo": {
                "type": "object",
                "required": [
                  "file_id",
                  "size",
                  "sha256",
                  "filetype",
                  "created_at_ms",
                  "download_url"
                ],
                "properties": {
                  "file_id": {
                    "type": "string"
                  },
                  "user_id": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "size": {
                    "type": "integer"
                  },
                  "sha256": {
                    "type": "string"
                  },
                  "filetype": {
                    "type": "string"
                  },
                  "created_at_ms": {
                    "type": "integer"
                  },
                  "download_url": {
                    "type": "string",
                    "format": "uri"
                  }
                }
              },
              "TranscriptionTaskRequest": {
                "type": "object",
                "required": [
                  "file_url",
                  "model"
                ],
                "properties": {
                  "file_url": {
                    "type": "string",
                    "description": "A DownloadUrl or FileId from complete-upload on this server."
                  },
                  "model": {
                    "type": "string",
                    "enum": [
                      "asr-fast",
                      "asr-pro"
                    ]
                  },
                  "language": {
                    "type": "string",
                    "description": "ISO code (en, zh, …); omit to detect."
                  },
                  "task": {
                    "type": "string",
                    "enum": [
                      "transcribe",
                      "translate"
                    ],
                    "default": "transcribe"
                  },
                  "diarization": {
                    "type": "object",
                    "required": [
                      "enabled"
                    ],
                    "properties": {
                      "enabled": {
                        "type": "boolean"
                      },
                      "speakers": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 32
                      },
                      "min_speakers": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 32,
                        "description": "Fewest speakers to find."
                      },
                      "max_speakers": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 32,
                        "description": "Most speakers to find."
                      }
                    }
                  },
                  "callback_url": {
                    "type": "string",
                    "description": "http(s) URL receiving the signed webhook when the task is final."
                  },
                  "user_id": {
                    "type": "string",
                    "description": "The partner's user the recording belongs to."
                  }
                }
              },
              "TranscriptSegment": {
                "type": "object",
                "required": [
                  "speaker",
                  "start_ms",
                  "end_ms",
                  "text"
                ],
                "properties": {
                  "speaker": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "start_ms": {
                    "type": "integer"
                  },
                  "end_ms": {
                    "type": "integer"
                  },
                  "text": {
                    "type": "string"
                  }
                }
              },
              "TranscriptionTask": {
                "type": "object",
                "required": [
                  "task_id",
                  "status",
                  "progress",
                  "model",
                  "file_id",
                  "attempts",
                  "created_at_ms",
                  "updated_at_ms"
                ],
                "properties": {
                  "task_id": {
                    "type": "string"
                  },
                  "status": {
                    "type": "string",
                    "enum": [
                      "PENDING",
                      "RECEIVED",
                      "STARTED",
                      "PROGRESS",
                      "SUCCESS",
                      "FAILURE",
                      "REVOKED"
                    ]
                  },
                  "progress": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 100,
                    "description": "Percent done."
                  },
                  "model": {
                    "type": "string"
                  },
                  "language": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "duration_ms": {
                    "type": [
                      "integer",
                      "null"
                    ]
                  },
                  "segments": {
                    "type": [
                      "array",
                      "null"
                    ],
                    "items": {
                      "$ref": "#/components/schemas/TranscriptSegment"
                    },
                    "description": "Present when SUCCESS."
                  },
                  "error": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "Why the task failed or was revoked, or the last error while retrying."
                  },
                  "file_id": {
                    "type": "string"
                  },
                  "user_id": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "attempts": {
                    "type": "integer"
                  },
                  "created_at_ms": {
                    "type": "integer"
                  },
                  "updated_at_ms": {
                    "type": "integer"
                  },
                  "finished_at_ms": {
                    "type": [
                      "integer",
                      "null"
                    ]
                  }
                }
              },
              "TranscriptionTaskList": {
                "type": "object",
                "required": [
                  "tasks"
                ],
                "properties": {
                  "tasks": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/TranscriptionTask"
                    }
                  },
                  "next_cursor": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              },
              "WebhookSecret": {
                "type": "object",
                "required": [
                  "secret"
                ],
                "properties": {
                  "secret": {
                    "type": "string"
                  }
                }
              },
              "WebhookAttempt": {
                "type": "object",
                "required": [
                  "attempt",
                  "at_ms",
                  "duration_ms"
                ],
                "properties": {
                  "attempt": {
                    "type": "integer"
                  },
                  "at_ms": {
                    "type": "integer"
                  },
                  "status": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "description": "HTTP status, null when no answer."
                  },
                  "error": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "duration_ms": {
                    "type": "integer"
                  }
                }
              },
              "WebhookDelivery": {
                "type": "object",
                "required": [
                  "delivery_id",
                  "task_id",
                  "url",
                  "event",
                  "state",
                  "attempts",
                  "next_attempt_at_ms",
                  "created_at_ms"
                ],
                "properties": {
                  "delivery_id": {
                    "type": "string"
                  },
                  "task_id": {
                    "type": "string"
                  },
                  "url": {
                    "type": "string"
                  },
                  "event": {
                    "type": "string",
                    "enum": [
                      "transcription.succeeded",
                      "transcription.failed",
                      "transcription.revoked"
                    ]
                  },
                  "state": {
                    "type": "string",
                    "enum": [
                      "pending",
                      "delivered",
                      "failed"
                    ]
                  },
                  "attempts": {
                    "type": "integer"
                  },
                  "next_attempt_at_ms": {
                    "type": "integer"
                  },
                  "created_at_ms": {
                    "type": "integer"
                  },
                  "attempt_log": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/WebhookAttempt"
                    }
                  }
                }
              },
              "WebhookDeliveryList": {
                "type": "object",
                "required": [
                  "deliveries"
                ],
                "properties": {
                  "deliveries": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/WebhookDelivery"
                    }
                  }
                }
              },
              "OpenAITranscription": {
                "type": "object",
                "required": [
                  "text"
                ],
                "properties": {
                  "text": {
                    "type": "string"
                  },
                  "task": {
                    "type": "string"
                  },
                  "language": {
                    "type": "string"
                  },
                  "duration": {
                    "type": "number"
                  },
                  "segments": {
                    "type": "array",
                    "items": {
                      "type": "object"
                    }
                  },
                  "words": {
                    "type": "array",
                    "items": {
                      "type": "object"
                    }
                  }
                }
              },
              "SpeakerRenameRequest": {
                "type": "object",
                "required": [
                  "names"
                ],
                "properties": {
                  "names": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "string"
                    },
                    "description": "Speaker label (or current name) → new name.",
                    "examples": [
                      {
                        "Speaker 1": "Alice"
                      }
                    ]
                  }
                }
              },
              "VoiceprintEnrolmentRequest": {
                "type": "object",
                "required": [
                  "name",
                  "file_id"
                ],
                "properties": {
                  "name": {
                    "type": "string",
                    "description": "The speaker's name, 1-64 characters (`Me` for the device wearer)."
                  },
                  "file_id": {
                    "type": "string",
                    "description": "A FileId or DownloadUrl from complete-upload."
                  },
                  "user_id": {
                    "type": "string",
                    "description": "Required with a partner token; a user token's own user otherwise."
                  }
                }
              },
              "Voiceprint": {
                "type": "object",
                "required": [
                  "voiceprint_id",
                  "user_id",
                  "name",
                  "speech_ms",
                  "file_id",
                  "created_at_ms"
                ],
                "properties": {
                  "voiceprint_id": {
                    "type": "string"
                  },
                  "user_id": {
                    "type": "string"
                  },
                  "name": {
                    "type": "string"
                  },
                  "speech_ms": {
                    "type": "integer",
                    "description": "Milliseconds of the speaker's speech it was made from."
                  },
                  "file_id": {
                    "type": "string"
                  },
                  "created_at_ms": {
                    "type": "integer"
                  }
                }
              },
              "VoiceprintList": {
                "type": "object",
                "required": [
                  "voiceprints"
                ],
                "properties": {
                  "voiceprints": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Voiceprint"
                    }
                  }
                }
              },
              "RecordCreateRequest": {
                "type": "object",
                "required": [
                  "file_id"
                ],
                "properties": {
                  "file_id": {
                    "type": "string",
                    "description": "FileId or DownloadUrl from complete-upload."
                  },
                  "user_id": {
                    "type": "string",
                    "description": "Partner tokens: the user owning the record."
                  },
                  "title": {
                    "type": "string",
                    "maxLength": 200
                  },
                  "tags": {
                    "type": "array",
                    "maxItems": 32,
                    "items": {
                      "type": "string",
                      "maxLength": 64
                    }
                  },
                  "record_time_ms": {
                    "type": "integer"
                  },
                  "language": {
                    "type": "string"
                  },
                  "source": {
                    "type": "string",
                    "description": "import (default), phone or device:<serial>."
                  }
                }
              },
              "RecordUpdateRequest": {
                "type": "object",
                "properties": {
                  "title": {
                    "type": "string",
                    "maxLength": 200
                  },
                  "tags": {
                    "type": "array",
                    "maxItems": 32,
                    "items": {
                      "type": "string",
                      "maxLength": 64
                    }
                  },
                  "speaker_names": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "string"
                    },
                    "description": "Label → display name; an empty name removes it."
                  }
                }
              },
              "RecordSummaryItem": {
                "type": "object",
                "required": [
                  "record_id",
                  "file_id",
                  "title",
                  "tags",
                  "record_time_ms",
                  "duration_ms",
                  "source",
                  "has_transcript",
                  "has_summary",
                  "translations",
                  "created_at_ms",
                  "updated_at_ms"
                ],
                "properties": {
                  "record_id": {
                    "type": "string"
                  },
                  "file_id": {
                    "type": "string"
                  },
                  "user_id": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "title": {
                    "type": "string"
                  },
                  "tags": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    }
                  },
                  "record_time_ms": {
                    "type": "integer",
                    "description": "When it was recorded (Unix ms)."
                  },
                  "duration_ms": {
                    "type": "integer"
                  },
                  "language": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "source": {
                    "type": "string",
                    "description": "import, phone or device:<serial>."
                  },
                  "has_transcript": {
                    "type": "boolean"
                  },
                  "has_summary": {
                    "type": "boolean"
                  },
                  "translations": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    },
                    "description": "Target languages translated."
                  },
                  "created_at_ms": {
                    "type": "integer"
                  },
                  "updated_at_ms": {
                    "type": "integer"
                  }
                }
              },
              "RecordList": {
                "type": "object",
                "required": [
                  "records"
                ],
                "properties": {
                  "records": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/RecordSummaryItem"
                    }
                  },
                  "next_cursor": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              },
              "RecordSentence": {
                "type": "object",
                "required": [
                  "start_ms",
                  "end_ms",
                  "text"
                ],
                "properties": {
                  "speaker": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "Display name if set, else the label."
                  },
                  "start_ms": {
                    "type": "integer"
                  },
                  "end_ms": {
                    "type": "integer"
                  },
                  "text": {
                    "type": "string"
                  },
                  "words": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "properties": {
                        "start_ms": {
                          "type": "integer"
                        },
                        "end_ms": {
                          "type": "integer"
                        },
                        "text": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              },
              "RecordDetail": {
                "type": "object",
                "required": [
                  "record",
                  "speaker_names",
                  "translations",
                  "tasks"
                ],
                "properties": {
                  "record": {
                    "$ref": "#/components/schemas/RecordSummaryItem"
                  },
                  "envelope": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "properties": {
                      "points_per_second": {
                        "type": "integer"
                      },
                      "count": {
                        "type": "integer"
                      },
                      "data": {
                        "type": "string",
                        "description": "Base64 of the quantised envelope (EENV v1: min, max, RMS per bucket)."
                      }
                    }
                  },
                  "speaker_names": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "string"
                    }
                  },
                  "transcript": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "properties": {
                      "language": {
                        "type": "string"
                      },
                      "duration_ms": {
                        "type": "integer"
                      },
                      "sentences": {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/RecordSentence"
                        }
                      }
                    }
                  },
                  "summary": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "properties": {
                      "abstract": {
                        "type": "string"
                      },
                      "key_points": {
                        "type": "array",
                        "items": {
                          "type": "object",
                          "required": [
                            "text",
                            "start_ms",
                            "end_ms"
                          ],
                          "properties": {
                            "text": {
                              "type": "string"
                            },
                            "start_ms": {
                              "type": "integer"
                            },
                            "end_ms": {
                              "type": "integer"
                            }
                          }
                        }
                      },
                      "action_items": {
                        "type": "array",
                        "items": {
                          "type": "object",
                          "required": [
                            "text",
                            "start_ms",
                            "end_ms"
                          ],
                          "properties": {
                            "text": {
                              "type": "string"
                            },
                            "start_ms": {
                              "type": "integer"
                            },
                            "end_ms": {
                              "type": "integer"
                            }
                          }
                        }
                      },
                      "method": {
                        "type": "string",
                        "enum": [
                          "llm",
                          "extractive",
                          "speech"
                        ]
                      },
                      "model": {
                        "type": [
                          "string",
                          "null"
                        ]
                      },
                      "language": {
                        "type": [
                          "string",
                          "null"
                        ]
                      },
                      "warnings": {
                        "type": "array",
                        "items": {
                          "type": "string"
                        },
                        "description": "Why the summary is what it is, e.g. why the extractive summary stands in for the language model's."
                      }
                    }
                  },
                  "translations": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "object",
                      "properties": {
                        "target_language": {
                          "type": "string"
                        },
                        "sentences": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/RecordSentence"
                          }
                        },
                        "method": {
                          "type": "string",
                          "enum": [
                            "llm",
                            "speech"
                          ]
                        },
                        "model": {
                          "type": [
                            "string",
                            "null"
                          ]
                        },
                        "detected_language": {
                          "type": [
                            "string",
                            "null"
                          ]
                        },
                        "warnings": {
                          "type": "array",
                          "items": {
                            "type": "string"
                          }
                        }
                      }
                    }
                  },
                  "tasks": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/RecordTask"
                    }
                  }
                }
              },
              "RecordTaskRequest": {
                "type": "object",
                "required": [
                  "task_type"
                ],
                "properties": {
                  "task_type": {
                    "type": "integer",
                    "enum": [
                      0,
                      1,
                      2
                    ],
                    "description": "0 transcribe, 1 summarize, 2 translate."
                  },
                  "target_language": {
                    "type": "string",
                    "enum": [
                      "zh",
                      "en",
                      "ja",
                      "ko",
                      "fr",
                      "de",
                      "es",
                      "ru",
                      "it",
                      "pt",
                      "th",
                      "vi",
                      "ar",
                      "hi"
                    ]
                  },
                  "model": {
                    "type": "string",
                    "enum": [
                      "asr-fast",
                      "asr-pro"
                    ],
                    "description": "Speech tier for task 0 and speech translation."
                  },
                  "source": {
                    "type": "string",
                    "enum": [
                      "transcript",
                      "speech"
                    ],
                    "description": "Task 2: speech (Whisper, English only) or transcript (language model, default)."
                  },
                  "diarization": {
                    "type": "object",
                    "required": [
                      "enabled"
                    ],
                    "properties": {
                      "enabled": {
                        "type": "boolean"
                      },
                      "speakers": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 32
                      },
                      "min_speakers": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 32,
                        "description": "Fewest speakers to find."
                      },
                      "max_speakers": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 32,
                        "description": "Most speakers to find."
                      }
                    },
                    "description": "Task 0: label speakers, as on transcription tasks; the record user's voiceprints name the speakers they match."
                  }
                }
              },
              "RecordTask": {
                "type": "object",
                "required": [
                  "task_id",
                  "record_id",
                  "task_type",
                  "status",
                  "progress",
                  "attempts",
                  "created_at_ms",
                  "updated_at_ms"
                ],
                "properties": {
                  "task_id": {
                    "type": "string"
                  },
                  "record_id": {
                    "type": "string"
                  },
                  "task_type": {
                    "type": "integer"
                  },
                  "target_language": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "source": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "model": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "status": {
                    "type": "string",
                    "enum": [
                      "PENDING",
                      "RECEIVED",
                      "STARTED",
                      "PROGRESS",
                      "SUCCESS",
                      "FAILURE",
                      "REVOKED"
                    ]
                  },
                  "progress": {
                    "type": "integer"
                  },
                  "error": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "attempts": {
                    "type": "integer"
                  },
                  "created_at_ms": {
                    "type": "integer"
                  },
                  "updated_at_ms": {
                    "type": "integer"
                  },
                  "finished_at_ms": {
                    "type": [
                      "integer",
                      "null"
                    ]
                  }
                }
              },
              "RecordTaskList": {
                "type": "object",
                "required": [
                  "tasks"
                ],
                "properties": {
                  "tasks": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/RecordTask"
                    }
                  }
                }
              },
              "RecordSearchResults": {
                "type": "object",
                "required": [
                  "query",
                  "hits"
                ],
                "properties": {
                  "query": {
                    "type": "string"
                  },
                  "next_offset": {
                    "type": [
                      "integer",
                      "null"
                    ]
                  },
                  "hits": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "properties": {
                        "record": {
                          "$ref": "#/components/schemas/RecordSummaryItem"
                        },
                        "score": {
                          "type": "number",
                          "description": "Negated bm25 of the best matching row (higher is better)."
                        },
                        "matches": {
                          "type": "array",
                          "items": {
                            "type": "object",
                            "properties": {
                              "field": {
                                "type": "string",
                                "enum": [
                                  "title",
                                  "tags",
                                  "transcript"
                                ]
                              },
                              "start_ms": {
                                "type": [
                                  "integer",
                                  "null"
                                ]
                              },
                              "snippet": {
                                "type": "string",
                                "description": "HTML-escaped, hits in <em>…</em>."
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
        """#
}
