/* IMPORTANT
 * This snapshot file is auto-generated, but designed for humans.
 * It should be checked into source control and tracked carefully.
 * Re-generate by setting TAP_SNAPSHOT=1 and running tests.
 * Make sure to inspect the output below.  Do not ignore changes!
 */
'use strict'
exports[`test/openapi-snapshots.test.ts > TAP > snapshot of the OpenAPI document of each version of the users example > OpenAPI document of 2000-01-01 1`] = `
Object {
  "components": Object {
    "responses": Object {
      "FastifyVersionerBadRequest": Object {
        "content": Object {
          "application/json": Object {
            "schema": Object {
              "$ref": "#/components/schemas/FastifyVersionerError",
            },
          },
        },
        "description": "Bad request: the API version in the 'x-api-version' header is malformed, not served or missing (FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION), or the request is invalid for this version (FST_ERR_VALIDATION).",
      },
      "FastifyVersionerNotFound": Object {
        "content": Object {
          "application/json": Object {
            "schema": Object {
              "$ref": "#/components/schemas/FastifyVersionerError",
            },
          },
        },
        "description": "Not found: the route does not exist in the API version the request named (Fastify's not-found answer).",
      },
    },
    "schemas": Object {
      "FastifyVersionerError": Object {
        "description": "Fastify's error body.",
        "properties": Object {
          "code": Object {
            "description": "FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION, FST_ERR_VALIDATION… (absent on a 404).",
            "type": "string",
          },
          "error": Object {
            "type": "string",
          },
          "message": Object {
            "description": "What was wrong; for the API version, what is accepted. A validation failure is worded by the schemaErrorFormatter.",
            "type": "string",
          },
          "statusCode": Object {
            "type": "integer",
          },
        },
        "required": Array [
          "statusCode",
          "error",
          "message",
        ],
        "type": "object",
      },
      "NotFound": Object {
        "properties": Object {
          "message": Object {
            "type": "string",
          },
        },
        "required": Array [
          "message",
        ],
        "type": "object",
      },
      "UserCreateRequest": Object {
        "properties": Object {
          "address": Object {
            "minLength": 1,
            "type": "string",
          },
        },
        "required": Array [
          "address",
        ],
        "type": "object",
      },
      "UserResource": Object {
        "examples": Array [
          Object {
            "address": "1 Main St",
            "id": "0f8b5a52-3c1e-4d2a-9b7f-6e4c2a1d9b30",
          },
        ],
        "properties": Object {
          "address": Object {
            "type": "string",
          },
          "id": Object {
            "format": "uuid",
            "type": "string",
          },
        },
        "required": Array [
          "id",
          "address",
        ],
        "type": "object",
      },
    },
  },
  "info": Object {
    "description": "The users example of fastify-versioner.",
    "title": "Users API",
    "version": "2000-01-01",
  },
  "openapi": "3.1.0",
  "paths": Object {
    "/users": Object {
      "post": Object {
        "operationId": "postUsers",
        "parameters": Array [
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2000-01-01",
              "enum": Array [
                "2000-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "requestBody": Object {
          "content": Object {
            "application/json": Object {
              "schema": Object {
                "$ref": "#/components/schemas/UserCreateRequest",
              },
            },
          },
          "required": true,
        },
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserResource",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "$ref": "#/components/responses/FastifyVersionerNotFound",
          },
        },
        "summary": "Create a user",
        "tags": Array [
          "users",
        ],
      },
    },
    "/users/{userId}": Object {
      "get": Object {
        "operationId": "getUsersByUserId",
        "parameters": Array [
          Object {
            "in": "path",
            "name": "userId",
            "required": true,
            "schema": Object {
              "format": "uuid",
              "type": "string",
            },
          },
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2000-01-01",
              "enum": Array [
                "2000-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserResource",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/NotFound",
                },
              },
            },
            "description": "Default Response",
          },
        },
        "summary": "Get a user",
        "tags": Array [
          "users",
        ],
      },
    },
  },
  "tags": Array [
    Object {
      "description": "Users and their default address.",
      "name": "users",
    },
  ],
  "webhooks": Object {
    "user.created": Object {
      "post": Object {
        "requestBody": Object {
          "content": Object {
            "application/json": Object {
              "schema": Object {
                "$ref": "#/components/schemas/UserResource",
              },
            },
          },
          "required": true,
        },
        "responses": Object {
          "200": Object {
            "description": "Return a 2xx status to acknowledge the delivery.",
          },
        },
        "summary": "A user was created",
        "tags": Array [
          "users",
        ],
      },
    },
  },
}
`

exports[`test/openapi-snapshots.test.ts > TAP > snapshot of the OpenAPI document of each version of the users example > OpenAPI document of 2001-01-01 1`] = `
Object {
  "components": Object {
    "responses": Object {
      "FastifyVersionerBadRequest": Object {
        "content": Object {
          "application/json": Object {
            "schema": Object {
              "$ref": "#/components/schemas/FastifyVersionerError",
            },
          },
        },
        "description": "Bad request: the API version in the 'x-api-version' header is malformed, not served or missing (FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION), or the request is invalid for this version (FST_ERR_VALIDATION).",
      },
      "FastifyVersionerNotFound": Object {
        "content": Object {
          "application/json": Object {
            "schema": Object {
              "$ref": "#/components/schemas/FastifyVersionerError",
            },
          },
        },
        "description": "Not found: the route does not exist in the API version the request named (Fastify's not-found answer).",
      },
    },
    "schemas": Object {
      "FastifyVersionerError": Object {
        "description": "Fastify's error body.",
        "properties": Object {
          "code": Object {
            "description": "FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION, FST_ERR_VALIDATION… (absent on a 404).",
            "type": "string",
          },
          "error": Object {
            "type": "string",
          },
          "message": Object {
            "description": "What was wrong; for the API version, what is accepted. A validation failure is worded by the schemaErrorFormatter.",
            "type": "string",
          },
          "statusCode": Object {
            "type": "integer",
          },
        },
        "required": Array [
          "statusCode",
          "error",
          "message",
        ],
        "type": "object",
      },
      "NotFound": Object {
        "properties": Object {
          "message": Object {
            "type": "string",
          },
        },
        "required": Array [
          "message",
        ],
        "type": "object",
      },
      "UserCreateRequest": Object {
        "properties": Object {
          "addresses": Object {
            "items": Object {
              "minLength": 1,
              "type": "string",
            },
            "minItems": 1,
            "type": "array",
          },
        },
        "required": Array [
          "addresses",
        ],
        "type": "object",
      },
      "UserResource": Object {
        "examples": Array [
          Object {
            "addresses": Array [
              "1 Main St",
              "2 Side St",
            ],
            "id": "0f8b5a52-3c1e-4d2a-9b7f-6e4c2a1d9b30",
          },
        ],
        "properties": Object {
          "addresses": Object {
            "items": Object {
              "type": "string",
            },
            "type": "array",
          },
          "id": Object {
            "format": "uuid",
            "type": "string",
          },
        },
        "required": Array [
          "id",
          "addresses",
        ],
        "type": "object",
      },
    },
  },
  "info": Object {
    "description": "The users example of fastify-versioner.",
    "title": "Users API",
    "version": "2001-01-01",
  },
  "openapi": "3.1.0",
  "paths": Object {
    "/users": Object {
      "post": Object {
        "operationId": "postUsers",
        "parameters": Array [
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2001-01-01",
              "enum": Array [
                "2001-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "requestBody": Object {
          "content": Object {
            "application/json": Object {
              "schema": Object {
                "$ref": "#/components/schemas/UserCreateRequest",
              },
            },
          },
          "required": true,
        },
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserResource",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "$ref": "#/components/responses/FastifyVersionerNotFound",
          },
        },
        "summary": "Create a user",
        "tags": Array [
          "users",
        ],
      },
    },
    "/users/{userId}": Object {
      "get": Object {
        "operationId": "getUsersByUserId",
        "parameters": Array [
          Object {
            "in": "path",
            "name": "userId",
            "required": true,
            "schema": Object {
              "format": "uuid",
              "type": "string",
            },
          },
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2001-01-01",
              "enum": Array [
                "2001-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserResource",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/NotFound",
                },
              },
            },
            "description": "Default Response",
          },
        },
        "summary": "Get a user",
        "tags": Array [
          "users",
        ],
      },
    },
  },
  "tags": Array [
    Object {
      "description": "Users and their default address.",
      "name": "users",
    },
  ],
  "webhooks": Object {
    "user.created": Object {
      "post": Object {
        "requestBody": Object {
          "content": Object {
            "application/json": Object {
              "schema": Object {
                "$ref": "#/components/schemas/UserResource",
              },
            },
          },
          "required": true,
        },
        "responses": Object {
          "200": Object {
            "description": "Return a 2xx status to acknowledge the delivery.",
          },
        },
        "summary": "A user was created",
        "tags": Array [
          "users",
        ],
      },
    },
  },
}
`

exports[`test/openapi-snapshots.test.ts > TAP > snapshot of the OpenAPI document of each version of the users example > OpenAPI document of 2002-01-01 1`] = `
Object {
  "components": Object {
    "responses": Object {
      "FastifyVersionerBadRequest": Object {
        "content": Object {
          "application/json": Object {
            "schema": Object {
              "$ref": "#/components/schemas/FastifyVersionerError",
            },
          },
        },
        "description": "Bad request: the API version in the 'x-api-version' header is malformed, not served or missing (FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION), or the request is invalid for this version (FST_ERR_VALIDATION).",
      },
      "FastifyVersionerNotFound": Object {
        "content": Object {
          "application/json": Object {
            "schema": Object {
              "$ref": "#/components/schemas/FastifyVersionerError",
            },
          },
        },
        "description": "Not found: the route does not exist in the API version the request named (Fastify's not-found answer).",
      },
    },
    "schemas": Object {
      "FastifyVersionerError": Object {
        "description": "Fastify's error body.",
        "properties": Object {
          "code": Object {
            "description": "FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION, FST_ERR_VALIDATION… (absent on a 404).",
            "type": "string",
          },
          "error": Object {
            "type": "string",
          },
          "message": Object {
            "description": "What was wrong; for the API version, what is accepted. A validation failure is worded by the schemaErrorFormatter.",
            "type": "string",
          },
          "statusCode": Object {
            "type": "integer",
          },
        },
        "required": Array [
          "statusCode",
          "error",
          "message",
        ],
        "type": "object",
      },
      "NotFound": Object {
        "properties": Object {
          "message": Object {
            "type": "string",
          },
        },
        "required": Array [
          "message",
        ],
        "type": "object",
      },
      "UserAddressResource": Object {
        "properties": Object {
          "id": Object {
            "format": "uuid",
            "type": "string",
          },
          "value": Object {
            "type": "string",
          },
        },
        "required": Array [
          "id",
          "value",
        ],
        "type": "object",
      },
      "UserAddressResourceList": Object {
        "properties": Object {
          "data": Object {
            "items": Object {
              "$ref": "#/components/schemas/UserAddressResource",
            },
            "type": "array",
          },
        },
        "required": Array [
          "data",
        ],
        "type": "object",
      },
      "UserCreateRequest": Object {
        "properties": Object {
          "defaultAddress": Object {
            "description": "The address deliveries go to by default.",
            "minLength": 1,
            "type": "string",
          },
        },
        "required": Array [
          "defaultAddress",
        ],
        "type": "object",
      },
      "UserResource": Object {
        "examples": Array [
          Object {
            "id": "0f8b5a52-3c1e-4d2a-9b7f-6e4c2a1d9b30",
          },
        ],
        "properties": Object {
          "id": Object {
            "format": "uuid",
            "type": "string",
          },
        },
        "required": Array [
          "id",
        ],
        "type": "object",
      },
    },
  },
  "info": Object {
    "description": "The users example of fastify-versioner.",
    "title": "Users API",
    "version": "2002-01-01",
  },
  "openapi": "3.1.0",
  "paths": Object {
    "/users": Object {
      "post": Object {
        "operationId": "postUsers",
        "parameters": Array [
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2002-01-01",
              "enum": Array [
                "2002-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "requestBody": Object {
          "content": Object {
            "application/json": Object {
              "schema": Object {
                "$ref": "#/components/schemas/UserCreateRequest",
              },
            },
          },
          "required": true,
        },
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserResource",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "$ref": "#/components/responses/FastifyVersionerNotFound",
          },
        },
        "summary": "Create a user",
        "tags": Array [
          "users",
        ],
      },
    },
    "/users/{userId}": Object {
      "get": Object {
        "operationId": "getUsersByUserId",
        "parameters": Array [
          Object {
            "in": "path",
            "name": "userId",
            "required": true,
            "schema": Object {
              "format": "uuid",
              "type": "string",
            },
          },
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2002-01-01",
              "enum": Array [
                "2002-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserResource",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/NotFound",
                },
              },
            },
            "description": "Default Response",
          },
        },
        "summary": "Get a user",
        "tags": Array [
          "users",
        ],
      },
    },
    "/users/{userId}/addresses": Object {
      "get": Object {
        "operationId": "getUsersByUserIdAddresses",
        "parameters": Array [
          Object {
            "in": "path",
            "name": "userId",
            "required": true,
            "schema": Object {
              "format": "uuid",
              "type": "string",
            },
          },
          Object {
            "in": "header",
            "name": "x-api-version",
            "required": false,
            "schema": Object {
              "default": "2002-01-01",
              "enum": Array [
                "2002-01-01",
              ],
              "format": "date",
              "type": "string",
            },
          },
        ],
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/UserAddressResourceList",
                },
              },
            },
            "description": "Default Response",
          },
          "400": Object {
            "$ref": "#/components/responses/FastifyVersionerBadRequest",
          },
          "404": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "$ref": "#/components/schemas/NotFound",
                },
              },
            },
            "description": "Default Response",
          },
        },
        "summary": "List a user's addresses",
        "tags": Array [
          "addresses",
        ],
      },
    },
  },
  "tags": Array [
    Object {
      "description": "Users and their default address.",
      "name": "users",
    },
    Object {
      "description": "A user's addresses.",
      "name": "addresses",
    },
  ],
  "webhooks": Object {
    "user.created": Object {
      "post": Object {
        "requestBody": Object {
          "content": Object {
            "application/json": Object {
              "schema": Object {
                "$ref": "#/components/schemas/UserResource",
              },
            },
          },
          "required": true,
        },
        "responses": Object {
          "200": Object {
            "description": "Return a 2xx status to acknowledge the delivery.",
          },
        },
        "summary": "A user was created",
        "tags": Array [
          "users",
        ],
      },
    },
  },
}
`

exports[`test/openapi-snapshots.test.ts > TAP > snapshot of the OpenAPI document of each version of the users example > OpenAPI document of unversioned 1`] = `
Object {
  "components": Object {
    "schemas": Object {},
  },
  "info": Object {
    "description": "The users example of fastify-versioner.",
    "title": "Users API",
    "version": "unversioned",
  },
  "openapi": "3.1.0",
  "paths": Object {
    "/changelog": Object {
      "get": Object {
        "deprecated": true,
        "description": "Deprecated: generated from the version changes; maintain and publish your own changelog instead. Still served.",
        "responses": Object {
          "200": Object {
            "content": Object {
              "application/json": Object {
                "schema": Object {
                  "properties": Object {
                    "versions": Object {
                      "items": Object {
                        "properties": Object {
                          "changes": Object {
                            "items": Object {
                              "properties": Object {
                                "description": Object {
                                  "type": "string",
                                },
                                "instructions": Object {
                                  "items": Object {
                                    "properties": Object {
                                      "changes": Object {
                                        "items": Object {
                                          "properties": Object {
                                            "name": Object {
                                              "type": "string",
                                            },
                                            "newValue": Object {},
                                            "previousValue": Object {},
                                            "status": Object {
                                              "anyOf": Array [
                                                Object {
                                                  "enum": Array [
                                                    "added",
                                                  ],
                                                  "type": "string",
                                                },
                                                Object {
                                                  "enum": Array [
                                                    "changed",
                                                  ],
                                                  "type": "string",
                                                },
                                                Object {
                                                  "enum": Array [
                                                    "removed",
                                                  ],
                                                  "type": "string",
                                                },
                                              ],
                                            },
                                          },
                                          "required": Array [
                                            "name",
                                          ],
                                          "type": "object",
                                        },
                                        "type": "array",
                                      },
                                      "field": Object {
                                        "type": "string",
                                      },
                                      "members": Object {
                                        "items": Object {},
                                        "type": "array",
                                      },
                                      "methods": Object {
                                        "items": Object {
                                          "type": "string",
                                        },
                                        "type": "array",
                                      },
                                      "models": Object {
                                        "items": Object {
                                          "type": "string",
                                        },
                                        "type": "array",
                                      },
                                      "path": Object {
                                        "type": "string",
                                      },
                                      "previousName": Object {
                                        "type": "string",
                                      },
                                      "schema": Object {},
                                      "type": Object {
                                        "anyOf": Array [
                                          Object {
                                            "enum": Array [
                                              "endpoint.added",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "endpoint.removed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "endpoint.changed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.renamed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.attributes.changed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.field.added",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.field.removed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.field.attributes.changed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.validator.added",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "schema.validator.removed",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "enum.members.added",
                                            ],
                                            "type": "string",
                                          },
                                          Object {
                                            "enum": Array [
                                              "enum.members.removed",
                                            ],
                                            "type": "string",
                                          },
                                        ],
                                      },
                                      "validator": Object {
                                        "type": "string",
                                      },
                                    },
                                    "required": Array [
                                      "type",
                                    ],
                                    "type": "object",
                                  },
                                  "type": "array",
                                },
                                "sideEffects": Object {
                                  "type": "boolean",
                                },
                              },
                              "required": Array [
                                "description",
                                "sideEffects",
                                "instructions",
                              ],
                              "type": "object",
                            },
                            "type": "array",
                          },
                          "value": Object {
                            "type": "string",
                          },
                        },
                        "required": Array [
                          "value",
                          "changes",
                        ],
                        "type": "object",
                      },
                      "type": "array",
                    },
                  },
                  "required": Array [
                    "versions",
                  ],
                  "type": "object",
                },
              },
            },
            "description": "Default Response",
          },
        },
        "summary": "The changes of every API version (deprecated)",
      },
    },
    "/health": Object {
      "get": Object {
        "responses": Object {
          "200": Object {
            "description": "Default Response",
          },
        },
      },
    },
  },
}
`
