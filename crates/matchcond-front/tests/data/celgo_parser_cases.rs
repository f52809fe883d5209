// Cases of the reference parser test table (inputs and expected outputs).
// Each: (input, options, expected tree or "", expected errors or "").
pub const CASES: &[(&str, &str, &str, &str)] = &[
    (
        r#""A""#,
        r#""#,
        r#""A"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#"true"#,
        r#""#,
        r#"true^#1:*expr.Constant_BoolValue#"#,
        r#""#,
    ),
    (
        r#"false"#,
        r#""#,
        r#"false^#1:*expr.Constant_BoolValue#"#,
        r#""#,
    ),
    (r#"0"#, r#""#, r#"0^#1:*expr.Constant_Int64Value#"#, r#""#),
    (r#"42"#, r#""#, r#"42^#1:*expr.Constant_Int64Value#"#, r#""#),
    (
        r#"0xF"#,
        r#""#,
        r#"15^#1:*expr.Constant_Int64Value#"#,
        r#""#,
    ),
    (
        r#"0u"#,
        r#""#,
        r#"0u^#1:*expr.Constant_Uint64Value#"#,
        r#""#,
    ),
    (
        r#"23u"#,
        r#""#,
        r#"23u^#1:*expr.Constant_Uint64Value#"#,
        r#""#,
    ),
    (
        r#"24u"#,
        r#""#,
        r#"24u^#1:*expr.Constant_Uint64Value#"#,
        r#""#,
    ),
    (
        r#"0xFu"#,
        r#""#,
        r#"15u^#1:*expr.Constant_Uint64Value#"#,
        r#""#,
    ),
    (r#"-1"#, r#""#, r#"-1^#1:*expr.Constant_Int64Value#"#, r#""#),
    (
        r#"4--4"#,
        r#""#,
        r#"_-_(
			4^#1:*expr.Constant_Int64Value#,
			-4^#3:*expr.Constant_Int64Value#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"4--4.1"#,
        r#""#,
        r#"_-_(
			4^#1:*expr.Constant_Int64Value#,
			-4.1^#3:*expr.Constant_DoubleValue#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"b"abc""#,
        r#""#,
        r#"b"abc"^#1:*expr.Constant_BytesValue#"#,
        r#""#,
    ),
    (
        r#"23.39"#,
        r#""#,
        r#"23.39^#1:*expr.Constant_DoubleValue#"#,
        r#""#,
    ),
    (
        r#"!a"#,
        r#""#,
        r#"!_(
			a^#2:*expr.Expr_IdentExpr#
		)^#1:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"null"#,
        r#""#,
        r#"null^#1:*expr.Constant_NullValue#"#,
        r#""#,
    ),
    (r#"a"#, r#""#, r#"a^#1:*expr.Expr_IdentExpr#"#, r#""#),
    (
        r#"a?b:c"#,
        r#""#,
        r#"_?_:_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#,
			c^#4:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a || b"#,
        r#""#,
        r#"_||_(
    		  a^#1:*expr.Expr_IdentExpr#,
    		  b^#2:*expr.Expr_IdentExpr#
			)^#3:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a || b || c || d || e || f "#,
        r#""#,
        r#" _||_(
			_||_(
			  _||_(
				a^#1:*expr.Expr_IdentExpr#,
				b^#2:*expr.Expr_IdentExpr#
			  )^#3:*expr.Expr_CallExpr#,
			  c^#4:*expr.Expr_IdentExpr#
			)^#5:*expr.Expr_CallExpr#,
			_||_(
			  _||_(
				d^#6:*expr.Expr_IdentExpr#,
				e^#8:*expr.Expr_IdentExpr#
			  )^#9:*expr.Expr_CallExpr#,
			  f^#10:*expr.Expr_IdentExpr#
			)^#11:*expr.Expr_CallExpr#
		  )^#7:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a && b"#,
        r#""#,
        r#"_&&_(
    		  a^#1:*expr.Expr_IdentExpr#,
    		  b^#2:*expr.Expr_IdentExpr#
			)^#3:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a && b && c && d && e && f && g"#,
        r#""#,
        r#"_&&_(
			_&&_(
			  _&&_(
				a^#1:*expr.Expr_IdentExpr#,
				b^#2:*expr.Expr_IdentExpr#
			  )^#3:*expr.Expr_CallExpr#,
			  _&&_(
				c^#4:*expr.Expr_IdentExpr#,
				d^#6:*expr.Expr_IdentExpr#
			  )^#7:*expr.Expr_CallExpr#
			)^#5:*expr.Expr_CallExpr#,
			_&&_(
			  _&&_(
				e^#8:*expr.Expr_IdentExpr#,
				f^#10:*expr.Expr_IdentExpr#
			  )^#11:*expr.Expr_CallExpr#,
			  g^#12:*expr.Expr_IdentExpr#
			)^#13:*expr.Expr_CallExpr#
		  )^#9:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a && b && c && d || e && f && g && h"#,
        r#""#,
        r#"_||_(
			_&&_(
			  _&&_(
				a^#1:*expr.Expr_IdentExpr#,
				b^#2:*expr.Expr_IdentExpr#
			  )^#3:*expr.Expr_CallExpr#,
			  _&&_(
				c^#4:*expr.Expr_IdentExpr#,
				d^#6:*expr.Expr_IdentExpr#
			  )^#7:*expr.Expr_CallExpr#
			)^#5:*expr.Expr_CallExpr#,
			_&&_(
			  _&&_(
				e^#8:*expr.Expr_IdentExpr#,
				f^#9:*expr.Expr_IdentExpr#
			  )^#10:*expr.Expr_CallExpr#,
			  _&&_(
				g^#11:*expr.Expr_IdentExpr#,
				h^#13:*expr.Expr_IdentExpr#
			  )^#14:*expr.Expr_CallExpr#
			)^#12:*expr.Expr_CallExpr#
		  )^#15:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a + b"#,
        r#""#,
        r#"_+_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a - b"#,
        r#""#,
        r#"_-_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a * b"#,
        r#""#,
        r#"_*_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a / b"#,
        r#""#,
        r#"_/_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a % b"#,
        r#""#,
        r#"_%_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a in b"#,
        r#""#,
        r#"@in(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a == b"#,
        r#""#,
        r#"_==_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a != b"#,
        r#""#,
        r#" _!=_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a > b"#,
        r#""#,
        r#"_>_(
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a >= b"#,
        r#""#,
        r#"_>=_(
    		  a^#1:*expr.Expr_IdentExpr#,
    		  b^#3:*expr.Expr_IdentExpr#
			)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a < b"#,
        r#""#,
        r#"_<_(
    		  a^#1:*expr.Expr_IdentExpr#,
    		  b^#3:*expr.Expr_IdentExpr#
			)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a <= b"#,
        r#""#,
        r#"_<=_(
    		  a^#1:*expr.Expr_IdentExpr#,
    		  b^#3:*expr.Expr_IdentExpr#
			)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a.b"#,
        r#""#,
        r#"a^#1:*expr.Expr_IdentExpr#.b^#2:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"a.b.c"#,
        r#""#,
        r#"a^#1:*expr.Expr_IdentExpr#.b^#2:*expr.Expr_SelectExpr#.c^#3:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"a[b]"#,
        r#""#,
        r#"_[_](
			a^#1:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"foo{ }"#,
        r#""#,
        r#"foo{}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"foo{ a:b }"#,
        r#""#,
        r#"foo{
			a:b^#3:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"foo{ a:b, c:d }"#,
        r#""#,
        r#"foo{
			a:b^#3:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#,
			c:d^#5:*expr.Expr_IdentExpr#^#4:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (r#"{}"#, r#""#, r#"{}^#1:*expr.Expr_StructExpr#"#, r#""#),
    (
        r#"{a:b, c:d}"#,
        r#""#,
        r#"{
			a^#3:*expr.Expr_IdentExpr#:b^#4:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#,
			c^#6:*expr.Expr_IdentExpr#:d^#7:*expr.Expr_IdentExpr#^#5:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (r#"[]"#, r#""#, r#"[]^#1:*expr.Expr_ListExpr#"#, r#""#),
    (
        r#"[a]"#,
        r#""#,
        r#"[
			a^#2:*expr.Expr_IdentExpr#
		]^#1:*expr.Expr_ListExpr#"#,
        r#""#,
    ),
    (
        r#"[a, b, c]"#,
        r#""#,
        r#"[
			a^#2:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#,
			c^#4:*expr.Expr_IdentExpr#
		]^#1:*expr.Expr_ListExpr#"#,
        r#""#,
    ),
    (r#"(a)"#, r#""#, r#"a^#1:*expr.Expr_IdentExpr#"#, r#""#),
    (r#"((a))"#, r#""#, r#"a^#1:*expr.Expr_IdentExpr#"#, r#""#),
    (r#"a()"#, r#""#, r#"a()^#1:*expr.Expr_CallExpr#"#, r#""#),
    (
        r#"a(b)"#,
        r#""#,
        r#"a(
			b^#2:*expr.Expr_IdentExpr#
		)^#1:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a(b, c)"#,
        r#""#,
        r#"a(
			b^#2:*expr.Expr_IdentExpr#,
			c^#3:*expr.Expr_IdentExpr#
		)^#1:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a.b()"#,
        r#""#,
        r#"a^#1:*expr.Expr_IdentExpr#.b()^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a.b(c)"#,
        r#""#,
        r#"a^#1:*expr.Expr_IdentExpr#.b(
			c^#3:*expr.Expr_IdentExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"0xFFFFFFFFFFFFFFFFF"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: invalid int literal
		| 0xFFFFFFFFFFFFFFFFF
		| ^"#,
    ),
    (
        r#"0xFFFFFFFFFFFFFFFFFu"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: invalid uint literal
		| 0xFFFFFFFFFFFFFFFFFu
		| ^"#,
    ),
    (
        r#"1.99e90000009"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: invalid double literal
		| 1.99e90000009
		| ^"#,
    ),
    (
        r#"*@a | b"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: extraneous input '*' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| *@a | b
		| ^
		ERROR: <input>:1:2: Syntax error: token recognition error at: '@'
		| *@a | b
		| .^
		ERROR: <input>:1:5: Syntax error: token recognition error at: '| '
		| *@a | b
		| ....^
		ERROR: <input>:1:7: Syntax error: extraneous input 'b' expecting <EOF>
		| *@a | b
		| ......^"#,
    ),
    (
        r#"a | b"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:3: Syntax error: token recognition error at: '| '
		| a | b
		| ..^
		ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>
		| a | b
		| ....^"#,
    ),
    (
        r#"has(m.f)"#,
        r#""#,
        r#"m^#2:*expr.Expr_IdentExpr#.f~test-only~^#4:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"has(m)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:5: invalid argument to has() macro
             | has(m)
             | ....^"#,
    ),
    (
        r#"m.exists(v, f)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			v,
			// Target
			m^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			false^#5:*expr.Constant_BoolValue#,
			// LoopCondition
			@not_strictly_false(
                !_(
                  @result^#6:*expr.Expr_IdentExpr#
                )^#7:*expr.Expr_CallExpr#
			)^#8:*expr.Expr_CallExpr#,
			// LoopStep
			_||_(
                @result^#9:*expr.Expr_IdentExpr#,
                f^#4:*expr.Expr_IdentExpr#
			)^#10:*expr.Expr_CallExpr#,
			// Result
			@result^#11:*expr.Expr_IdentExpr#)^#12:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.all(v, f)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			v,
			// Target
			m^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			true^#5:*expr.Constant_BoolValue#,
			// LoopCondition
			@not_strictly_false(
                @result^#6:*expr.Expr_IdentExpr#
            )^#7:*expr.Expr_CallExpr#,
			// LoopStep
			_&&_(
                @result^#8:*expr.Expr_IdentExpr#,
                f^#4:*expr.Expr_IdentExpr#
            )^#9:*expr.Expr_CallExpr#,
			// Result
			@result^#10:*expr.Expr_IdentExpr#)^#11:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.existsOne(v, f)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			v,
			// Target
			m^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			0^#5:*expr.Constant_Int64Value#,
			// LoopCondition
			true^#6:*expr.Constant_BoolValue#,
			// LoopStep
			_?_:_(
				f^#4:*expr.Expr_IdentExpr#,
				_+_(
					  @result^#7:*expr.Expr_IdentExpr#,
				  1^#8:*expr.Constant_Int64Value#
				)^#9:*expr.Expr_CallExpr#,
				@result^#10:*expr.Expr_IdentExpr#
			)^#11:*expr.Expr_CallExpr#,
			// Result
			_==_(
				@result^#12:*expr.Expr_IdentExpr#,
				1^#13:*expr.Constant_Int64Value#
			)^#14:*expr.Expr_CallExpr#)^#15:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"[].existsOne(__result__, __result__)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:14: iteration variable overwrites accumulator variable
             | [].existsOne(__result__, __result__)
             | .............^"#,
    ),
    (
        r#"m.map(v, f)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			v,
			// Target
			m^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			[]^#5:*expr.Expr_ListExpr#,
			// LoopCondition
			true^#6:*expr.Constant_BoolValue#,
			// LoopStep
			_+_(
				@result^#7:*expr.Expr_IdentExpr#,
				[
					f^#4:*expr.Expr_IdentExpr#
				]^#8:*expr.Expr_ListExpr#
			)^#9:*expr.Expr_CallExpr#,
			// Result
			@result^#10:*expr.Expr_IdentExpr#)^#11:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.map(__result__, __result__)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:7: iteration variable overwrites accumulator variable
             | m.map(__result__, __result__)
             | ......^"#,
    ),
    (
        r#"m.map(v, p, f)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			v,
			// Target
			m^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			[]^#6:*expr.Expr_ListExpr#,
			// LoopCondition
			true^#7:*expr.Constant_BoolValue#,
			// LoopStep
			_?_:_(
				p^#4:*expr.Expr_IdentExpr#,
				_+_(
					@result^#8:*expr.Expr_IdentExpr#,
					[
						f^#5:*expr.Expr_IdentExpr#
					]^#9:*expr.Expr_ListExpr#
				)^#10:*expr.Expr_CallExpr#,
				@result^#11:*expr.Expr_IdentExpr#
			)^#12:*expr.Expr_CallExpr#,
			// Result
			@result^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.filter(v, p)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			v,
			// Target
			m^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			[]^#5:*expr.Expr_ListExpr#,
			// LoopCondition
			true^#6:*expr.Constant_BoolValue#,
			// LoopStep
			_?_:_(
				p^#4:*expr.Expr_IdentExpr#,
				_+_(
					@result^#7:*expr.Expr_IdentExpr#,
					[
						v^#3:*expr.Expr_IdentExpr#
					]^#8:*expr.Expr_ListExpr#
				)^#9:*expr.Expr_CallExpr#,
				@result^#10:*expr.Expr_IdentExpr#
			)^#11:*expr.Expr_CallExpr#,
			// Result
			@result^#12:*expr.Expr_IdentExpr#)^#13:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.filter(__result__, false)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:10: iteration variable overwrites accumulator variable
             | m.filter(__result__, false)
             | .........^"#,
    ),
    (
        r#"m.filter(a.b, false)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:11: argument is not an identifier
             | m.filter(a.b, false)
             | ..........^"#,
    ),
    (
        r#"x * 2"#,
        r#""#,
        r#"_*_(
			x^#1:*expr.Expr_IdentExpr#,
			2^#3:*expr.Constant_Int64Value#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"x * 2u"#,
        r#""#,
        r#"_*_(
			x^#1:*expr.Expr_IdentExpr#,
			2u^#3:*expr.Constant_Uint64Value#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"x * 2.0"#,
        r#""#,
        r#"_*_(
			x^#1:*expr.Expr_IdentExpr#,
			2^#3:*expr.Constant_DoubleValue#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#""\u2764""#,
        r#""#,
        r#""❤"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#""❤""#,
        r#""#,
        r#""❤"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#"! false"#,
        r#""#,
        r#"!_(
			false^#2:*expr.Constant_BoolValue#
		)^#1:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"-a"#,
        r#""#,
        r#"-_(
			a^#2:*expr.Expr_IdentExpr#
		)^#1:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a.b(5)"#,
        r#""#,
        r#"a^#1:*expr.Expr_IdentExpr#.b(
			5^#3:*expr.Constant_Int64Value#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a[3]"#,
        r#""#,
        r#"_[_](
			a^#1:*expr.Expr_IdentExpr#,
			3^#3:*expr.Constant_Int64Value#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"SomeMessage{foo: 5, bar: "xyz"}"#,
        r#""#,
        r#"SomeMessage{
			foo:5^#3:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#,
			bar:"xyz"^#5:*expr.Constant_StringValue#^#4:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"[3, 4, 5]"#,
        r#""#,
        r#"[
			3^#2:*expr.Constant_Int64Value#,
			4^#3:*expr.Constant_Int64Value#,
			5^#4:*expr.Constant_Int64Value#
		]^#1:*expr.Expr_ListExpr#"#,
        r#""#,
    ),
    (
        r#"[3, 4, 5,]"#,
        r#""#,
        r#"[
			3^#2:*expr.Constant_Int64Value#,
			4^#3:*expr.Constant_Int64Value#,
			5^#4:*expr.Constant_Int64Value#
		]^#1:*expr.Expr_ListExpr#"#,
        r#""#,
    ),
    (
        r#"{foo: 5, bar: "xyz"}"#,
        r#""#,
        r#"{
			foo^#3:*expr.Expr_IdentExpr#:5^#4:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#,
			bar^#6:*expr.Expr_IdentExpr#:"xyz"^#7:*expr.Constant_StringValue#^#5:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"{foo: 5, bar: "xyz", }"#,
        r#""#,
        r#"{
			foo^#3:*expr.Expr_IdentExpr#:5^#4:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#,
			bar^#6:*expr.Expr_IdentExpr#:"xyz"^#7:*expr.Constant_StringValue#^#5:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"a > 5 && a < 10"#,
        r#""#,
        r#"_&&_(
			_>_(
			  a^#1:*expr.Expr_IdentExpr#,
			  5^#3:*expr.Constant_Int64Value#
			)^#2:*expr.Expr_CallExpr#,
			_<_(
			  a^#4:*expr.Expr_IdentExpr#,
			  10^#6:*expr.Constant_Int64Value#
			)^#5:*expr.Expr_CallExpr#
		)^#7:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"a < 5 || a > 10"#,
        r#""#,
        r#"_||_(
			_<_(
			  a^#1:*expr.Expr_IdentExpr#,
			  5^#3:*expr.Constant_Int64Value#
			)^#2:*expr.Expr_CallExpr#,
			_>_(
			  a^#4:*expr.Expr_IdentExpr#,
			  10^#6:*expr.Constant_Int64Value#
			)^#5:*expr.Expr_CallExpr#
		)^#7:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"{"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		 | {
		 | .^"#,
    ),
    (
        r#"[] + [1,2,3,] + [4]"#,
        r#""#,
        r#"_+_(
			_+_(
				[]^#1:*expr.Expr_ListExpr#,
				[
					1^#4:*expr.Constant_Int64Value#,
					2^#5:*expr.Constant_Int64Value#,
					3^#6:*expr.Constant_Int64Value#
				]^#3:*expr.Expr_ListExpr#
			)^#2:*expr.Expr_CallExpr#,
			[
				4^#9:*expr.Constant_Int64Value#
			]^#8:*expr.Expr_ListExpr#
		)^#7:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"{1:2u, 2:3u}"#,
        r#""#,
        r#"{
			1^#3:*expr.Constant_Int64Value#:2u^#4:*expr.Constant_Uint64Value#^#2:*expr.Expr_CreateStruct_Entry#,
			2^#6:*expr.Constant_Int64Value#:3u^#7:*expr.Constant_Uint64Value#^#5:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"TestAllTypes{single_int32: 1, single_int64: 2}"#,
        r#""#,
        r#"TestAllTypes{
			single_int32:1^#3:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#,
			single_int64:2^#5:*expr.Constant_Int64Value#^#4:*expr.Expr_CreateStruct_Entry#
		}^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"TestAllTypes(){}"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:15: Syntax error: mismatched input '{' expecting <EOF>
		| TestAllTypes(){}
		| ..............^"#,
    ),
    (
        r#"TestAllTypes{}()"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:15: Syntax error: mismatched input '(' expecting <EOF>
		| TestAllTypes{}()
		| ..............^"#,
    ),
    (
        r#"size(x) == x.size()"#,
        r#""#,
        r#"_==_(
			size(
				x^#2:*expr.Expr_IdentExpr#
			)^#1:*expr.Expr_CallExpr#,
			x^#4:*expr.Expr_IdentExpr#.size()^#5:*expr.Expr_CallExpr#
		)^#3:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"1 + $"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:5: Syntax error: token recognition error at: '$'
		| 1 + $
		| ....^
		ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| 1 + $
		| .....^"#,
    ),
    (
        r#"1 + 2
3 +"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:2:1: Syntax error: mismatched input '3' expecting <EOF>
		| 3 +
		| ^"#,
    ),
    (
        r#""\"""#,
        r#""#,
        r#""\""^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#"[1,3,4][0]"#,
        r#""#,
        r#"_[_](
			[
				1^#2:*expr.Constant_Int64Value#,
				3^#3:*expr.Constant_Int64Value#,
				4^#4:*expr.Constant_Int64Value#
			]^#1:*expr.Expr_ListExpr#,
			0^#6:*expr.Constant_Int64Value#
		)^#5:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"1.all(2, 3)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:7: argument must be a simple name
		| 1.all(2, 3)
		| ......^"#,
    ),
    (
        r#"x["a"].single_int32 == 23"#,
        r#""#,
        r#"_==_(
			_[_](
				x^#1:*expr.Expr_IdentExpr#,
				"a"^#3:*expr.Constant_StringValue#
			)^#2:*expr.Expr_CallExpr#.single_int32^#4:*expr.Expr_SelectExpr#,
			23^#6:*expr.Constant_Int64Value#
		)^#5:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"x.single_nested_message != null"#,
        r#""#,
        r#"_!=_(
			x^#1:*expr.Expr_IdentExpr#.single_nested_message^#2:*expr.Expr_SelectExpr#,
			null^#4:*expr.Constant_NullValue#
		)^#3:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"false && !true || false ? 2 : 3"#,
        r#""#,
        r#"_?_:_(
			_||_(
				_&&_(
					false^#1:*expr.Constant_BoolValue#,
					!_(
						true^#3:*expr.Constant_BoolValue#
					)^#2:*expr.Expr_CallExpr#
				)^#4:*expr.Expr_CallExpr#,
				false^#5:*expr.Constant_BoolValue#
			)^#6:*expr.Expr_CallExpr#,
			2^#8:*expr.Constant_Int64Value#,
			3^#9:*expr.Constant_Int64Value#
		)^#7:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"b"abc" + B"def""#,
        r#""#,
        r#"_+_(
			b"abc"^#1:*expr.Constant_BytesValue#,
			b"def"^#3:*expr.Constant_BytesValue#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"1 + 2 * 3 - 1 / 2 == 6 % 1"#,
        r#""#,
        r#"_==_(
			_-_(
				_+_(
					1^#1:*expr.Constant_Int64Value#,
					_*_(
						2^#3:*expr.Constant_Int64Value#,
						3^#5:*expr.Constant_Int64Value#
					)^#4:*expr.Expr_CallExpr#
				)^#2:*expr.Expr_CallExpr#,
				_/_(
					1^#7:*expr.Constant_Int64Value#,
					2^#9:*expr.Constant_Int64Value#
				)^#8:*expr.Expr_CallExpr#
			)^#6:*expr.Expr_CallExpr#,
			_%_(
				6^#11:*expr.Constant_Int64Value#,
				1^#13:*expr.Constant_Int64Value#
			)^#12:*expr.Expr_CallExpr#
		)^#10:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"1 + +"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| 1 + +
		| ....^
		ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| 1 + +
		| .....^"#,
    ),
    (
        r#""abc" + "def""#,
        r#""#,
        r#"_+_(
			"abc"^#1:*expr.Constant_StringValue#,
			"def"^#3:*expr.Constant_StringValue#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"{"a": 1}."a""#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:10: Syntax error: no viable alternative at input '."a"'
		| {"a": 1}."a"
		| .........^"#,
    ),
    (
        r#""\xC3\XBF""#,
        r#""#,
        r#""Ã¿"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#""\303\277""#,
        r#""#,
        r#""Ã¿"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#""hi\u263A \u263Athere""#,
        r#""#,
        r#""hi☺ ☺there"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#""\U000003A8\?""#,
        r#""#,
        r#""Ψ?"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#""\a\b\f\n\r\t\v'\"\\\? Legal escapes""#,
        r#""#,
        r#""\a\b\f\n\r\t\v'\"\\? Legal escapes"^#1:*expr.Constant_StringValue#"#,
        r#""#,
    ),
    (
        r#""\xFh""#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: token recognition error at: '"\xFh'
		| "\xFh"
		| ^
		ERROR: <input>:1:6: Syntax error: token recognition error at: '"'
		| "\xFh"
		| .....^
		ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| "\xFh"
		| ......^"#,
    ),
    (
        r#""\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>""#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: token recognition error at: '"\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>'
		| "\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>"
		| ^
		ERROR: <input>:1:42: Syntax error: token recognition error at: '"'
		| "\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>"
		| .........................................^
		ERROR: <input>:1:43: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| "\a\b\f\n\r\t\v\'\"\\\? Illegal escape \>"
		| ..........................................^"#,
    ),
    (
        r#""😁" in ["😁", "😑", "😦"]"#,
        r#""#,
        r#"@in(
			"😁"^#1:*expr.Constant_StringValue#,
			[
				"😁"^#4:*expr.Constant_StringValue#,
				"😑"^#5:*expr.Constant_StringValue#,
				"😦"^#6:*expr.Constant_StringValue#
			]^#3:*expr.Expr_ListExpr#
		)^#2:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"      '😁' in ['😁', '😑', '😦']
			&& in.😁"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:2:7: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		|    && in.😁
		| ......^
	    ERROR: <input>:2:10: Syntax error: token recognition error at: '😁'
		|    && in.😁
		| .........＾
		ERROR: <input>:2:11: Syntax error: no viable alternative at input '.'
		|    && in.😁
		| .........．^"#,
    ),
    (
        r#"as"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: as
		| as
		| ^"#,
    ),
    (
        r#"break"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: break
		| break
		| ^"#,
    ),
    (
        r#"const"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: const
		| const
		| ^"#,
    ),
    (
        r#"continue"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: continue
		| continue
		| ^"#,
    ),
    (
        r#"else"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: else
		| else
		| ^"#,
    ),
    (
        r#"for"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: for
		| for
		| ^"#,
    ),
    (
        r#"function"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: function
		| function
		| ^"#,
    ),
    (
        r#"if"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: if
		| if
		| ^"#,
    ),
    (
        r#"import"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: import
		| import
		| ^"#,
    ),
    (
        r#"in"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: mismatched input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| in
		| ^
        ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| in
		| ..^"#,
    ),
    (
        r#"let"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: let
		| let
		| ^"#,
    ),
    (
        r#"loop"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: loop
		| loop
		| ^"#,
    ),
    (
        r#"package"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: package
		| package
		| ^"#,
    ),
    (
        r#"namespace"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: namespace
		| namespace
		| ^"#,
    ),
    (
        r#"return"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: return
		| return
		| ^"#,
    ),
    (
        r#"var"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: var
		| var
		| ^"#,
    ),
    (
        r#"void"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: void
		| void
		| ^"#,
    ),
    (
        r#"while"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: reserved identifier: while
		| while
		| ^"#,
    ),
    (
        r#"[1, 2, 3].map(var, var * var)"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:15: reserved identifier: var
		| [1, 2, 3].map(var, var * var)
		| ..............^
		ERROR: <input>:1:15: argument is not an identifier
		| [1, 2, 3].map(var, var * var)
		| ..............^
		ERROR: <input>:1:20: reserved identifier: var
		| [1, 2, 3].map(var, var * var)
		| ...................^
		ERROR: <input>:1:26: reserved identifier: var
		| [1, 2, 3].map(var, var * var)
		| .........................^"#,
    ),
    (
        r#"func{{a}}"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:6: Syntax error: extraneous input '{' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}
		| func{{a}}
		| .....^
	    ERROR: <input>:1:8: Syntax error: mismatched input '}' expecting ':'
		| func{{a}}
		| .......^
	    ERROR: <input>:1:9: Syntax error: extraneous input '}' expecting <EOF>
		| func{{a}}
		| ........^"#,
    ),
    (
        r#"msg{:a}"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:5: Syntax error: extraneous input ':' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}
		| msg{:a}
		| ....^
	    ERROR: <input>:1:7: Syntax error: mismatched input '}' expecting ':'
		| msg{:a}
		| ......^"#,
    ),
    (
        r#"{a}"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:3: Syntax error: mismatched input '}' expecting ':'
		| {a}
		| ..^"#,
    ),
    (
        r#"{:a}"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:2: Syntax error: extraneous input ':' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| {:a}
		| .^
	    ERROR: <input>:1:4: Syntax error: mismatched input '}' expecting ':'
		| {:a}
		| ...^"#,
    ),
    (
        r#"ind[a{b}]"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:8: Syntax error: mismatched input '}' expecting ':'
		| ind[a{b}]
		| .......^"#,
    ),
    (
        r#"--"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:3: Syntax error: no viable alternative at input '-'
		| --
		| ..^
	    ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| --
		| ..^"#,
    ),
    (
        r#"?"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: mismatched input '?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| ?
		| ^
	    ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| ?
		| .^"#,
    ),
    (
        r#"a ? b ((?))"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:9: Syntax error: mismatched input '?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| a ? b ((?))
		| ........^
	    ERROR: <input>:1:10: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
		| a ? b ((?))
		| .........^
	    ERROR: <input>:1:12: Syntax error: error recovery attempt limit exceeded: 4
		| a ? b ((?))
		| ...........^"#,
    ),
    (
        r#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
			[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['too many']]]]]]]]]]]]]]]]]]]]]]]]]]]]
			]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: expression recursion limit exceeded: 32"#,
    ),
    (
        r#"-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
		--3-[-1--1--1--1---1-1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1-À1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
		--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1
		--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1
		--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: expression recursion limit exceeded: 32
        ERROR: <input>:3:33: Syntax error: extraneous input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
        |   --3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
        | ................................^
        ERROR: <input>:8:33: Syntax error: extraneous input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
        |   --3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1
        | ................................^
        ERROR: <input>:11:17: Syntax error: token recognition error at: 'À'
        |   --1--1---1--1-À1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
        | ................＾
        ERROR: <input>:14:23: Syntax error: extraneous input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
        |   --1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1
        | ......................^"#,
    ),
    (
        r#"ó ¢
		ó 0 
		0"""\""\"""\""\"""\""\"""\""\"""\"\"""\""\"""\""\"""\""\"""\"!\"""\""\"""\""\""#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: error recovery token lookahead limit exceeded: 4
		ERROR: <input>:1:1: Syntax error: token recognition error at: 'ó'
	    | ó ¢
		| ＾
		ERROR: <input>:1:2: Syntax error: token recognition error at: ' '
		| ó ¢
		| ．＾
		ERROR: <input>:1:3: Syntax error: token recognition error at: '¢'
		| ó ¢
		| ．．＾
		ERROR: <input>:2:3: Syntax error: token recognition error at: 'ó'
		|   ó 0 
		| ..＾
		ERROR: <input>:2:4: Syntax error: token recognition error at: ' '
		|   ó 0 
		| ..．＾
		ERROR: <input>:2:6: Syntax error: token recognition error at: ' '
		|   ó 0 
		| ..．．.＾
		ERROR: <input>:3:3: Syntax error: token recognition error at: ''
		|   0"""\""\"""\""\"""\""\"""\""\"""\"\"""\""\"""\""\"""\""\"""\"!\"""\""\"""\""\"
		| ..^
		ERROR: <input>:3:4: Syntax error: mismatched input '0' expecting <EOF>
		|   0"""\""\"""\""\"""\""\"""\""\"""\"\"""\""\"""\""\"""\""\"""\"!\"""\""\"""\""\"
		| ...^
		ERROR: <input>:3:11: Syntax error: token recognition error at: '\'
		|   0"""\""\"""\""\"""\""\"""\""\"""\"\"""\""\"""\""\"""\""\"""\"!\"""\""\"""\""\"
		| ..........^"#,
    ),
    (
        r#"x.filter(y, y.filter(z, z > 0))"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			y,
			// Target
			x^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			[]^#19:*expr.Expr_ListExpr#,
			// LoopCondition
			true^#20:*expr.Constant_BoolValue#,
			// LoopStep
			_?_:_(
			  __comprehension__(
				// Variable
				z,
				// Target
				y^#4:*expr.Expr_IdentExpr#,
				// Accumulator
				@result,
				// Init
				[]^#10:*expr.Expr_ListExpr#,
				// LoopCondition
				true^#11:*expr.Constant_BoolValue#,
				// LoopStep
				_?_:_(
				  _>_(
					z^#7:*expr.Expr_IdentExpr#,
					0^#9:*expr.Constant_Int64Value#
				  )^#8:*expr.Expr_CallExpr#,
				  _+_(
					@result^#12:*expr.Expr_IdentExpr#,
					[
					  z^#6:*expr.Expr_IdentExpr#
					]^#13:*expr.Expr_ListExpr#
				  )^#14:*expr.Expr_CallExpr#,
				  @result^#15:*expr.Expr_IdentExpr#
				)^#16:*expr.Expr_CallExpr#,
				// Result
				@result^#17:*expr.Expr_IdentExpr#)^#18:*expr.Expr_ComprehensionExpr#,
			  _+_(
				@result^#21:*expr.Expr_IdentExpr#,
				[
				  y^#3:*expr.Expr_IdentExpr#
				]^#22:*expr.Expr_ListExpr#
			  )^#23:*expr.Expr_CallExpr#,
			  @result^#24:*expr.Expr_IdentExpr#
			)^#25:*expr.Expr_CallExpr#,
			// Result
			@result^#26:*expr.Expr_IdentExpr#)^#27:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"has(a.b).filter(c, c)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			c,
			// Target
			a^#2:*expr.Expr_IdentExpr#.b~test-only~^#4:*expr.Expr_SelectExpr#,
			// Accumulator
			@result,
			// Init
			[]^#8:*expr.Expr_ListExpr#,
			// LoopCondition
			true^#9:*expr.Constant_BoolValue#,
			// LoopStep
			_?_:_(
			  c^#7:*expr.Expr_IdentExpr#,
			  _+_(
				@result^#10:*expr.Expr_IdentExpr#,
				[
				  c^#6:*expr.Expr_IdentExpr#
				]^#11:*expr.Expr_ListExpr#
			  )^#12:*expr.Expr_CallExpr#,
			  @result^#13:*expr.Expr_IdentExpr#
			)^#14:*expr.Expr_CallExpr#,
			// Result
			@result^#15:*expr.Expr_IdentExpr#)^#16:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"x.filter(y, y.exists(z, has(z.a)) && y.exists(z, has(z.b)))"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			y,
			// Target
			x^#1:*expr.Expr_IdentExpr#,
			// Accumulator
			@result,
			// Init
			[]^#35:*expr.Expr_ListExpr#,
			// LoopCondition
			true^#36:*expr.Constant_BoolValue#,
			// LoopStep
			_?_:_(
			  _&&_(
				__comprehension__(
				  // Variable
				  z,
				  // Target
				  y^#4:*expr.Expr_IdentExpr#,
				  // Accumulator
				  @result,
				  // Init
				  false^#11:*expr.Constant_BoolValue#,
				  // LoopCondition
				  @not_strictly_false(
					!_(
					  @result^#12:*expr.Expr_IdentExpr#
					)^#13:*expr.Expr_CallExpr#
				  )^#14:*expr.Expr_CallExpr#,
				  // LoopStep
				  _||_(
					@result^#15:*expr.Expr_IdentExpr#,
					z^#8:*expr.Expr_IdentExpr#.a~test-only~^#10:*expr.Expr_SelectExpr#
				  )^#16:*expr.Expr_CallExpr#,
				  // Result
				  @result^#17:*expr.Expr_IdentExpr#)^#18:*expr.Expr_ComprehensionExpr#,
				__comprehension__(
				  // Variable
				  z,
				  // Target
				  y^#19:*expr.Expr_IdentExpr#,
				  // Accumulator
				  @result,
				  // Init
				  false^#26:*expr.Constant_BoolValue#,
				  // LoopCondition
				  @not_strictly_false(
					!_(
					  @result^#27:*expr.Expr_IdentExpr#
					)^#28:*expr.Expr_CallExpr#
				  )^#29:*expr.Expr_CallExpr#,
				  // LoopStep
				  _||_(
					@result^#30:*expr.Expr_IdentExpr#,
					z^#23:*expr.Expr_IdentExpr#.b~test-only~^#25:*expr.Expr_SelectExpr#
				  )^#31:*expr.Expr_CallExpr#,
				  // Result
				  @result^#32:*expr.Expr_IdentExpr#)^#33:*expr.Expr_ComprehensionExpr#
			  )^#34:*expr.Expr_CallExpr#,
			  _+_(
				@result^#37:*expr.Expr_IdentExpr#,
				[
				  y^#3:*expr.Expr_IdentExpr#
				]^#38:*expr.Expr_ListExpr#
			  )^#39:*expr.Expr_CallExpr#,
			  @result^#40:*expr.Expr_IdentExpr#
			)^#41:*expr.Expr_CallExpr#,
			// Result
			@result^#42:*expr.Expr_IdentExpr#)^#43:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"(has(a.b) || has(c.d)).string()"#,
        r#""#,
        r#"_||_(
			  a^#2:*expr.Expr_IdentExpr#.b~test-only~^#4:*expr.Expr_SelectExpr#,
			  c^#6:*expr.Expr_IdentExpr#.d~test-only~^#8:*expr.Expr_SelectExpr#
		    )^#9:*expr.Expr_CallExpr#.string()^#10:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"has(a.b).asList().exists(c, c)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			c,
			// Target
			a^#2:*expr.Expr_IdentExpr#.b~test-only~^#4:*expr.Expr_SelectExpr#.asList()^#5:*expr.Expr_CallExpr#,
			// Accumulator
			@result,
			// Init
			false^#9:*expr.Constant_BoolValue#,
			// LoopCondition
			@not_strictly_false(
			  !_(
				@result^#10:*expr.Expr_IdentExpr#
			  )^#11:*expr.Expr_CallExpr#
			)^#12:*expr.Expr_CallExpr#,
			// LoopStep
			_||_(
			  @result^#13:*expr.Expr_IdentExpr#,
			  c^#8:*expr.Expr_IdentExpr#
			)^#14:*expr.Expr_CallExpr#,
			// Result
			@result^#15:*expr.Expr_IdentExpr#)^#16:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"[has(a.b), has(c.d)].exists(e, e)"#,
        r#""#,
        r#"__comprehension__(
			// Variable
			e,
			// Target
			[
			  a^#3:*expr.Expr_IdentExpr#.b~test-only~^#5:*expr.Expr_SelectExpr#,
			  c^#7:*expr.Expr_IdentExpr#.d~test-only~^#9:*expr.Expr_SelectExpr#
			]^#1:*expr.Expr_ListExpr#,
			// Accumulator
			@result,
			// Init
			false^#13:*expr.Constant_BoolValue#,
			// LoopCondition
			@not_strictly_false(
			  !_(
				@result^#14:*expr.Expr_IdentExpr#
			  )^#15:*expr.Expr_CallExpr#
			)^#16:*expr.Expr_CallExpr#,
			// LoopStep
			_||_(
			  @result^#17:*expr.Expr_IdentExpr#,
			  e^#12:*expr.Expr_IdentExpr#
			)^#18:*expr.Expr_CallExpr#,
			// Result
			@result^#19:*expr.Expr_IdentExpr#)^#20:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"y!=y!=y!=y!=y!=y!=y!=y!=y!=-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y
		!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y
		!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y
		!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y
		!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y
		!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: max recursion depth exceeded"#,
    ),
    (
        r#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['not fine']]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: expression recursion limit exceeded: 32"#,
    ),
    (
        r#"1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10
		+ 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20
		+ 21 + 22 + 23 + 24 + 25 + 26 + 27 + 28 + 29 + 30
		+ 31 + 32 + 33 + 34"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: max recursion depth exceeded"#,
    ),
    (
        r#"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F.G.H"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: max recursion depth exceeded"#,
    ),
    (
        r#"a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20]
		     [21][22][23][24][25][26][27][28][29][30][31][32][33]"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: max recursion depth exceeded"#,
    ),
    (
        r#"a < 1 < 2 < 3 < 4 < 5 < 6 < 7 < 8 < 9 < 10 < 11
		      < 12 < 13 < 14 < 15 < 16 < 17 < 18 < 19 < 20 < 21
			  < 22 < 23 < 24 < 25 < 26 < 27 < 28 < 29 < 30 < 31
			  < 32 < 33"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: max recursion depth exceeded"#,
    ),
    (
        r#"a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20] !=
		a[1][2][3][4][5][6][7][8][9][10][11][12][13][14][15][16][17][18][19][20]"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:-1:0: max recursion depth exceeded"#,
    ),
    (
        r#"self.true == 1"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER
		| self.true == 1
		| .....^"#,
    ),
    (
        r#"a.?b && a[?b]"#,
        r#""#,
        r#""#,
        r#"ERROR: <input>:1:2: unsupported syntax '.?'
        | a.?b && a[?b]
        | .^
        ERROR: <input>:1:10: unsupported syntax '[?'
        | a.?b && a[?b]
		| .........^"#,
    ),
    (
        r#"a.?b[?0] && a[?c]"#,
        r#"[]Option{EnableOptionalSyntax(true)}"#,
        r#"_&&_(
			_[?_](
			  _?._(
				a^#1:*expr.Expr_IdentExpr#,
				"b"^#2:*expr.Constant_StringValue#
			  )^#3:*expr.Expr_CallExpr#,
			  0^#5:*expr.Constant_Int64Value#
			)^#4:*expr.Expr_CallExpr#,
			_[?_](
			  a^#6:*expr.Expr_IdentExpr#,
			  c^#8:*expr.Expr_IdentExpr#
			)^#7:*expr.Expr_CallExpr#
		  )^#9:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"{?'key': value}"#,
        r#"[]Option{EnableOptionalSyntax(true)}"#,
        r#"{
			?"key"^#3:*expr.Constant_StringValue#:value^#4:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#
		  }^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"[?a, ?b]"#,
        r#"[]Option{EnableOptionalSyntax(true)}"#,
        r#"[
			a^#2:*expr.Expr_IdentExpr#,
			b^#3:*expr.Expr_IdentExpr#
		  ]^#1:*expr.Expr_ListExpr#"#,
        r#""#,
    ),
    (
        r#"[?a[?b]]"#,
        r#"[]Option{EnableOptionalSyntax(true)}"#,
        r#"[
			_[?_](
			  a^#2:*expr.Expr_IdentExpr#,
			  b^#4:*expr.Expr_IdentExpr#
			)^#3:*expr.Expr_CallExpr#
		  ]^#1:*expr.Expr_ListExpr#"#,
        r#""#,
    ),
    (
        r#"[?a, ?b]"#,
        r#""#,
        r#""#,
        r#"
	    ERROR: <input>:1:2: unsupported syntax '?'
		 | [?a, ?b]
		 | .^
	    ERROR: <input>:1:6: unsupported syntax '?'
		 | [?a, ?b]
		 | .....^"#,
    ),
    (
        r#"Msg{?field: value}"#,
        r#"[]Option{EnableOptionalSyntax(true)}"#,
        r#"Msg{
			?field:value^#3:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#
		  }^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"Msg{?field: value} && {?'key': value}"#,
        r#""#,
        r#""#,
        r#"
		ERROR: <input>:1:5: unsupported syntax '?'
	 	 | Msg{?field: value} && {?'key': value}
		 | ....^
	    ERROR: <input>:1:24: unsupported syntax '?'
		 | Msg{?field: value} && {?'key': value}
		 | .......................^"#,
    ),
    (
        r#"a.`b-c`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#"a^#1:*expr.Expr_IdentExpr#.b-c^#2:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"a.`b c`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#"a^#1:*expr.Expr_IdentExpr#.b c^#2:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"a.`b.c`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#"a^#1:*expr.Expr_IdentExpr#.b.c^#2:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"a.`in`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#"a^#1:*expr.Expr_IdentExpr#.in^#2:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"a.`/foo`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#"a^#1:*expr.Expr_IdentExpr#./foo^#2:*expr.Expr_SelectExpr#"#,
        r#""#,
    ),
    (
        r#"Message{`in`: true}"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#"Message{
			in:true^#3:*expr.Constant_BoolValue#^#2:*expr.Expr_CreateStruct_Entry#
		  }^#1:*expr.Expr_StructExpr#"#,
        r#""#,
    ),
    (
        r#"`b-c`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: mismatched input '`b-c`' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
| `b-c`
| ^"#,
    ),
    (
        r#"`b-c`()"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#""#,
        r#"ERROR: <input>:1:1: Syntax error: extraneous input '`b-c`' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
| `b-c`()
| ^
ERROR: <input>:1:7: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
| `b-c`()
| ......^"#,
    ),
    (
        r#"a.`$b`"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#""#,
        r#"ERROR: <input>:1:3: Syntax error: token recognition error at: '`$'
| a.`$b`
| ..^
ERROR: <input>:1:6: Syntax error: token recognition error at: '`'
| a.`$b`
| .....^"#,
    ),
    (
        r#"a.`b.c`()"#,
        r#"[]Option{EnableIdentEscapeSyntax(true)}"#,
        r#""#,
        r#"ERROR: <input>:1:8: Syntax error: mismatched input '(' expecting <EOF>
| a.`b.c`()
| .......^
"#,
    ),
    (
        r#"a.`b-c`"#,
        r#"[]Option{EnableIdentEscapeSyntax(false)}"#,
        r#""#,
        r#"ERROR: <input>:1:3: unsupported syntax: '`'
| a.`b-c`
| ..^"#,
    ),
    (
        r#"a.`b.c`"#,
        r#"[]Option{EnableIdentEscapeSyntax(false)}"#,
        r#""#,
        r#"ERROR: <input>:1:3: unsupported syntax: '`'
| a.`b.c`
| ..^
"#,
    ),
    (
        r#"a.`in`"#,
        r#"[]Option{EnableIdentEscapeSyntax(false)}"#,
        r#""#,
        r#"ERROR: <input>:1:3: unsupported syntax: '`'
| a.`in`
| ..^"#,
    ),
    (
        r#"a.`/foo`"#,
        r#"[]Option{EnableIdentEscapeSyntax(false)}"#,
        r#""#,
        r#"ERROR: <input>:1:3: unsupported syntax: '`'
| a.`/foo`
| ..^"#,
    ),
    (
        r#"Message{`in`: true}"#,
        r#"[]Option{EnableIdentEscapeSyntax(false)}"#,
        r#""#,
        r#"ERROR: <input>:1:9: unsupported syntax: '`'
| Message{`in`: true}
| ........^"#,
    ),
    (
        r#"noop_macro(123)"#,
        r#"[]Option{ Macros(NewGlobalVarArgMacro("noop_macro", func(eh ExprHelper, target ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) { return nil, nil })), }"#,
        r#"noop_macro(
			123^#2:*expr.Constant_Int64Value#
		  )^#1:*expr.Expr_CallExpr#"#,
        r#""#,
    ),
    (
        r#"x{?."#,
        r#"[]Option{ ErrorRecoveryLookaheadTokenLimit(10), ErrorRecoveryLimit(10), }"#,
        r#""#,
        r#"
		ERROR: <input>:1:3: unsupported syntax '?'
		 | x{?.
		 | ..^
	    ERROR: <input>:1:4: Syntax error: mismatched input '.' expecting {IDENTIFIER, ESC_IDENTIFIER}
		 | x{?.
		 | ...^"#,
    ),
    (
        r#"x{."#,
        r#""#,
        r#""#,
        r#"
		ERROR: <input>:1:3: Syntax error: mismatched input '.' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}
		 | x{.
		 | ..^"#,
    ),
    (
        r#"'3# < 10" '& tru ^^"#,
        r#"[]Option{ErrorReportingLimit(2)}"#,
        r#""#,
        r#"
		ERROR: <input>:1:12: Syntax error: token recognition error at: '& '
		 | '3# < 10" '& tru ^^
		 | ...........^
		ERROR: <input>:1:18: Syntax error: token recognition error at: '^'
		 | '3# < 10" '& tru ^^
		 | .................^
		ERROR: <input>:1:19: Syntax error: More than 2 syntax errors
		 | '3# < 10" '& tru ^^
		 | ..................^
		"#,
    ),
    (
        r#"'\udead' == '\ufffd'"#,
        r#""#,
        r#""#,
        r#"
		ERROR: <input>:1:1: invalid unicode code point
         | '\udead' == '\ufffd'
         | ^"#,
    ),
    (
        r#"m.exists(v, f)"#,
        r#"[]Option{ EnableHiddenAccumulatorName(false), }"#,
        r#"__comprehension__(
				// Variable
				v,
				// Target
				m^#1:*expr.Expr_IdentExpr#,
				// Accumulator
				__result__,
				// Init
				false^#5:*expr.Constant_BoolValue#,
				// LoopCondition
				@not_strictly_false(
					!_(
					  __result__^#6:*expr.Expr_IdentExpr#
					)^#7:*expr.Expr_CallExpr#
				)^#8:*expr.Expr_CallExpr#,
				// LoopStep
				_||_(
					__result__^#9:*expr.Expr_IdentExpr#,
					f^#4:*expr.Expr_IdentExpr#
				)^#10:*expr.Expr_CallExpr#,
				// Result
				__result__^#11:*expr.Expr_IdentExpr#)^#12:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.all(v, f)"#,
        r#"[]Option{ EnableHiddenAccumulatorName(false), }"#,
        r#"__comprehension__(
				// Variable
				v,
				// Target
				m^#1:*expr.Expr_IdentExpr#,
				// Accumulator
				__result__,
				// Init
				true^#5:*expr.Constant_BoolValue#,
				// LoopCondition
				@not_strictly_false(
					__result__^#6:*expr.Expr_IdentExpr#
				)^#7:*expr.Expr_CallExpr#,
				// LoopStep
				_&&_(
					__result__^#8:*expr.Expr_IdentExpr#,
					f^#4:*expr.Expr_IdentExpr#
				)^#9:*expr.Expr_CallExpr#,
				// Result
				__result__^#10:*expr.Expr_IdentExpr#)^#11:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.existsOne(v, f)"#,
        r#"[]Option{ EnableHiddenAccumulatorName(false), }"#,
        r#"__comprehension__(
				// Variable
				v,
				// Target
				m^#1:*expr.Expr_IdentExpr#,
				// Accumulator
				__result__,
				// Init
				0^#5:*expr.Constant_Int64Value#,
				// LoopCondition
				true^#6:*expr.Constant_BoolValue#,
				// LoopStep
				_?_:_(
					f^#4:*expr.Expr_IdentExpr#,
					_+_(
						  __result__^#7:*expr.Expr_IdentExpr#,
					  1^#8:*expr.Constant_Int64Value#
					)^#9:*expr.Expr_CallExpr#,
					__result__^#10:*expr.Expr_IdentExpr#
				)^#11:*expr.Expr_CallExpr#,
				// Result
				_==_(
					__result__^#12:*expr.Expr_IdentExpr#,
					1^#13:*expr.Constant_Int64Value#
				)^#14:*expr.Expr_CallExpr#)^#15:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.map(v, f)"#,
        r#"[]Option{ EnableHiddenAccumulatorName(false), }"#,
        r#"__comprehension__(
				// Variable
				v,
				// Target
				m^#1:*expr.Expr_IdentExpr#,
				// Accumulator
				__result__,
				// Init
				[]^#5:*expr.Expr_ListExpr#,
				// LoopCondition
				true^#6:*expr.Constant_BoolValue#,
				// LoopStep
				_+_(
					__result__^#7:*expr.Expr_IdentExpr#,
					[
						f^#4:*expr.Expr_IdentExpr#
					]^#8:*expr.Expr_ListExpr#
				)^#9:*expr.Expr_CallExpr#,
				// Result
				__result__^#10:*expr.Expr_IdentExpr#)^#11:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.map(v, p, f)"#,
        r#"[]Option{ EnableHiddenAccumulatorName(false), }"#,
        r#"__comprehension__(
				// Variable
				v,
				// Target
				m^#1:*expr.Expr_IdentExpr#,
				// Accumulator
				__result__,
				// Init
				[]^#6:*expr.Expr_ListExpr#,
				// LoopCondition
				true^#7:*expr.Constant_BoolValue#,
				// LoopStep
				_?_:_(
					p^#4:*expr.Expr_IdentExpr#,
					_+_(
						__result__^#8:*expr.Expr_IdentExpr#,
						[
							f^#5:*expr.Expr_IdentExpr#
						]^#9:*expr.Expr_ListExpr#
					)^#10:*expr.Expr_CallExpr#,
					__result__^#11:*expr.Expr_IdentExpr#
				)^#12:*expr.Expr_CallExpr#,
				// Result
				__result__^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
    (
        r#"m.filter(v, p)"#,
        r#"[]Option{ EnableHiddenAccumulatorName(false), }"#,
        r#"__comprehension__(
				// Variable
				v,
				// Target
				m^#1:*expr.Expr_IdentExpr#,
				// Accumulator
				__result__,
				// Init
				[]^#5:*expr.Expr_ListExpr#,
				// LoopCondition
				true^#6:*expr.Constant_BoolValue#,
				// LoopStep
				_?_:_(
					p^#4:*expr.Expr_IdentExpr#,
					_+_(
						__result__^#7:*expr.Expr_IdentExpr#,
						[
							v^#3:*expr.Expr_IdentExpr#
						]^#8:*expr.Expr_ListExpr#
					)^#9:*expr.Expr_CallExpr#,
					__result__^#10:*expr.Expr_IdentExpr#
				)^#11:*expr.Expr_CallExpr#,
				// Result
				__result__^#12:*expr.Expr_IdentExpr#)^#13:*expr.Expr_ComprehensionExpr#"#,
        r#""#,
    ),
];
