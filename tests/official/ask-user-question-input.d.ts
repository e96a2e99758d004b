/**
 * The official input of Claude Code's AskUserQuestion tool, which askbridge's schema is pinned to
 * (tests/unit/official-types.test.ts). The declaration below is copied verbatim, unchanged, from
 * sdk-tools.d.ts of @anthropic-ai/claude-code 2.1.330, the client version package.json pins
 * ("config"."claudeCodeVersion"). tests/conformance/official-declaration.conformance.test.ts compares
 * it with that file of the installed client. To move to another client: change the pin, run
 * `npm run test:conformance`, copy the declaration it shows here, update the version above, and
 * follow the typecheck to whatever askbridge must change.
 */
export interface AskUserQuestionInput {
  /**
   * Questions to ask the user (1-4 questions)
   *
   * @minItems 1
   * @maxItems 4
   */
  questions:
    | [
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        }
      ]
    | [
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        },
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        }
      ]
    | [
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        },
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        },
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        }
      ]
    | [
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        },
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        },
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        },
        {
          /**
           * The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"
           */
          question: string;
          /**
           * Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".
           */
          header: string;
          /**
           * The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.
           *
           * @minItems 2
           * @maxItems 4
           */
          options:
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ]
            | [
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                },
                {
                  /**
                   * The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.
                   */
                  label: string;
                  /**
                   * Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.
                   */
                  description: string;
                  /**
                   * Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.
                   */
                  preview?: string;
                }
              ];
          /**
           * Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.
           */
          multiSelect: boolean;
        }
      ];
  /**
   * User answers collected by the permission component
   */
  answers?: {
    [k: string]: string;
  };
  /**
   * Optional per-question annotations from the user (e.g., notes on preview selections). Keyed by question text.
   */
  annotations?: {
    [k: string]: {
      /**
       * The preview content of the selected option, if the question used previews.
       */
      preview?: string;
      /**
       * Free-text notes the user added to their selection.
       */
      notes?: string;
    };
  };
  /**
   * Optional metadata for tracking and analytics purposes. Not displayed to user.
   */
  metadata?: {
    /**
     * Optional identifier for the source of this question (e.g., "remember" for /remember command). Used for analytics tracking.
     */
    source?: string;
  };
}
